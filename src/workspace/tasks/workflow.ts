import { AppError } from '../../errors.ts';
import type { TaskStatus } from './types.ts';

/**
 * The task workflow: from each status, the statuses a task may move to. Staying in the same
 * status is always allowed (a no-op). Anything else is 409 `Cannot move a task from X to Y`.
 *
 *   todo        -> in_progress, cancelled
 *   in_progress -> done, blocked, cancelled
 *   blocked     -> in_progress, cancelled
 *   done        -> in_progress            (reopen)
 *   cancelled   -> todo                   (reopen)
 */
export const TASK_TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  todo: ['in_progress', 'cancelled'],
  in_progress: ['done', 'blocked', 'cancelled'],
  blocked: ['in_progress', 'cancelled'],
  done: ['in_progress'],
  cancelled: ['todo'],
};

export function canMove(from: TaskStatus, to: TaskStatus): boolean {
  return from === to || TASK_TRANSITIONS[from].includes(to);
}

export function checkTransition(from: TaskStatus, to: TaskStatus): void {
  if (!canMove(from, to)) throw AppError.conflict(`Cannot move a task from ${from} to ${to}`);
}

/** completedAt after a move: set on entering done, kept while done, cleared on leaving it. */
export function completedAtAfter(from: TaskStatus, to: TaskStatus, current: Date | null, now: Date): Date | null {
  if (to !== 'done') return null;
  return from === 'done' ? current : now;
}
