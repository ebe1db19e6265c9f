import { describe, expect, it } from 'vitest';
import { canMove, checkTransition, completedAtAfter, TASK_TRANSITIONS } from '../../src/workspace/tasks/workflow.ts';
import { TASK_STATUSES } from '../../src/workspace/tasks/types.ts';
import { AppError } from '../../src/errors.ts';

describe('task workflow', () => {
  it('allows exactly the documented moves (and staying put)', () => {
    const allowed = TASK_STATUSES.flatMap((from) => TASK_STATUSES.filter((to) => from !== to && canMove(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual(
      [
        'todo->in_progress',
        'todo->cancelled',
        'in_progress->done',
        'in_progress->blocked',
        'in_progress->cancelled',
        'blocked->in_progress',
        'blocked->cancelled',
        'done->in_progress',
        'cancelled->todo',
      ].sort(),
    );
    for (const status of TASK_STATUSES) expect(canMove(status, status)).toBe(true);
    expect(Object.keys(TASK_TRANSITIONS).sort()).toEqual([...TASK_STATUSES].sort());
  });

  it('refuses any other move with CONFLICT and the documented message', () => {
    try {
      checkTransition('done', 'blocked');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('CONFLICT');
      expect((error as AppError).message).toBe('Cannot move a task from done to blocked');
    }
    expect(() => checkTransition('todo', 'done')).toThrow('Cannot move a task from todo to done');
    expect(() => checkTransition('cancelled', 'in_progress')).toThrow('Cannot move a task from cancelled to in_progress');
    expect(() => checkTransition('blocked', 'blocked')).not.toThrow();
  });

  it('completedAt: set entering done, kept while done, cleared leaving it', () => {
    const now = new Date('2026-11-21T10:00:00Z');
    const earlier = new Date('2026-11-20T10:00:00Z');
    expect(completedAtAfter('in_progress', 'done', null, now)).toBe(now);
    expect(completedAtAfter('done', 'done', earlier, now)).toBe(earlier);
    expect(completedAtAfter('done', 'in_progress', earlier, now)).toBeNull();
    expect(completedAtAfter('todo', 'cancelled', null, now)).toBeNull();
  });
});
