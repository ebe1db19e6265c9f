import type pg from 'pg';
import type { Intent } from '../intent.ts';
import { DASHBOARD, mdLink } from '../links.ts';
import { OFFLINE_LIMITS, type Answerer, type Asker } from './types.ts';
import { plural } from '../../../util/plural.ts';
import { cite, oneLine, quoteTitle } from '../citations.ts';

type TasksIntent = Extract<Intent, { kind: 'tasks' }>;

const SHOWN = 10;

interface TaskRow {
  id: string;
  title: string;
  status: string;
  priority: string;
  assignee: string | null;
  dueDate: string | null;
}

/** "Which tasks are overdue?", "Tasks assigned to Ana", "Tasks due this week": the caller's own tasks, not done or cancelled. */
export class TasksAnswerer implements Answerer<'tasks'> {
  readonly kind = 'tasks' as const;

  constructor(private readonly pool: pg.Pool) {}

  async answer(intent: TasksIntent, asker: Asker): Promise<string> {
    let assignee = intent.assignee;
    if (assignee && /^(?:me|myself)$/i.test(assignee)) {
      const { rows } = await this.pool.query<{ name: string | null; email: string }>(`SELECT name, email FROM "User" WHERE id = $1`, [asker.userId]);
      assignee = rows[0]?.name ?? rows[0]?.email ?? assignee;
    }
    const weekEnd = addDays(asker.today, 7);
    const { rows } = await this.pool.query<TaskRow & { total: number }>(
      `SELECT t.id, t.title, t.status::text AS status, t.priority::text AS priority, t.assignee, t."dueDate"::text AS "dueDate", count(*) OVER ()::int AS total
         FROM "Task" t
        WHERE t."userId" = $1 AND t.status NOT IN ('done', 'cancelled')
          AND CASE $2::text
                WHEN 'overdue' THEN t."dueDate" < $3::date
                WHEN 'due-soon' THEN t."dueDate" BETWEEN $3::date AND $4::date
                ELSE t.assignee ILIKE $5 END
        ORDER BY t."dueDate" NULLS LAST, t."updatedAt" DESC, t.id LIMIT $6`,
      [asker.userId, intent.filter, asker.today, weekEnd, `%${(assignee ?? '').replace(/[\\%_]/g, (c) => `\\${c}`)}%`, SHOWN],
    );
    const total = rows[0]?.total ?? 0;
    const what =
      intent.filter === 'overdue'
        ? `overdue (due before ${asker.today})`
        : intent.filter === 'due-soon'
          ? `due from ${asker.today} to ${weekEnd}`
          : `assigned to "${assignee}"`;
    const lines: string[] = [];
    if (total === 0) lines.push(`You have no open tasks ${what}.`);
    else {
      lines.push(`You have ${plural(total, 'open task')} ${what}${total > SHOWN ? `; the first ${SHOWN}` : ''}:`);
      for (const task of rows) {
        const facts = [task.status.replace(/_/g, ' '), `${task.priority} priority`];
        if (task.assignee) facts.push(`assigned to ${task.assignee}`);
        if (task.dueDate) facts.push(`due ${task.dueDate}`);
        lines.push(`- ${oneLine(task.title)} (${facts.join(', ')}) ${cite('task', quoteTitle(task.title), DASHBOARD.task(task.id))}`);
      }
    }
    lines.push('', `All your tasks are on the ${mdLink('Tasks', DASHBOARD.tasks)} page.`, '', OFFLINE_LIMITS);
    return lines.join('\n');
  }
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
