import type { Prisma, PrismaClient, Task, TaskComment } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import { checkTransition, completedAtAfter } from './workflow.ts';
import type { CommentAuthor, NewTask, TaskChanges, TaskCommentRecord, TaskFilter, TaskPage, TaskProvider, TaskRecord } from './types.ts';
import { escapeLike } from '../../util/like.ts';
import { decodeCursor, encodeCursor, instantAndId, keysetPage } from '../../pagination.ts';

/** A task holds at most this many comments (GET /api/pm/tasks/{id} returns them all). */
export const MAX_COMMENTS_PER_TASK = 1_000;

/** Row locks may wait for another writer of the same task; Prisma's defaults are tight for a burst. */
const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;

type CommentWithAuthor = TaskComment & { author: { name: string | null; email: string } };

/**
 * Tasks in the service's own database (Task, TaskComment). Status changes lock the task's row
 * (`SELECT ... FOR UPDATE`) so that the workflow check and the write see the same status even
 * when two requests move one task at once.
 */
export class BuiltinTaskProvider implements TaskProvider {
  readonly name = 'builtin' as const;

  constructor(private readonly prisma: PrismaClient) {}

  async list(userId: string, filter: TaskFilter): Promise<TaskPage> {
    const after = filter.cursor ? decodeTaskCursor(filter.cursor) : null;
    const where: Prisma.TaskWhereInput = {
      userId,
      ...(filter.statuses && filter.statuses.length > 0 ? { status: { in: [...filter.statuses] } } : {}),
      ...(filter.assignee ? { assignee: { equals: escapeLike(filter.assignee), mode: 'insensitive' } } : {}),
      ...(filter.label ? { labels: { has: filter.label } } : {}),
      ...(after ? { OR: [{ updatedAt: { lt: after.updatedAt } }, { updatedAt: after.updatedAt, id: { lt: after.id } }] } : {}),
    };
    const rows = await this.prisma.task.findMany({ where, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], take: filter.limit + 1 });
    return { ...keysetPage(rows.map(toRecord), filter.limit, encodeTaskCursor), cursorOf: encodeTaskCursor };
  }

  async get(userId: string, id: string): Promise<TaskRecord & { comments: TaskCommentRecord[] }> {
    const task = await this.prisma.task.findFirst({
      where: { id, userId },
      include: { comments: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], include: { author: { select: { name: true, email: true } } } } },
    });
    if (!task) throw AppError.notFound('Task');
    return { ...toRecord(task), comments: task.comments.map(toCommentRecord) };
  }

  async create(userId: string, task: NewTask): Promise<TaskRecord> {
    const now = new Date();
    const row = await this.prisma.task.create({
      data: {
        userId,
        title: task.title,
        description: task.description,
        status: task.status,
        priority: task.priority,
        assignee: task.assignee,
        dueDate: task.dueDate ? toDbDate(task.dueDate) : null,
        labels: task.labels,
        createdAt: now,
        updatedAt: now,
        completedAt: task.status === 'done' ? now : null,
      },
    });
    return toRecord(row);
  }

  async update(userId: string, id: string, changes: TaskChanges): Promise<TaskRecord> {
    return this.prisma.$transaction(async (tx) => {
      const current = await lockTask(tx, userId, id);
      const data: Prisma.TaskUpdateInput = {};
      if (changes.title !== undefined && changes.title !== current.title) data.title = changes.title;
      if (changes.description !== undefined && changes.description !== current.description) data.description = changes.description;
      if (changes.priority !== undefined && changes.priority !== current.priority) data.priority = changes.priority;
      if (changes.assignee !== undefined && changes.assignee !== current.assignee) data.assignee = changes.assignee;
      if (changes.dueDate !== undefined && changes.dueDate !== dateText(current.dueDate)) data.dueDate = changes.dueDate ? toDbDate(changes.dueDate) : null;
      if (changes.labels !== undefined && !sameList(changes.labels, current.labels)) data.labels = changes.labels;
      const now = new Date();
      if (changes.status !== undefined && changes.status !== current.status) {
        checkTransition(current.status, changes.status);
        data.status = changes.status;
        data.completedAt = completedAtAfter(current.status, changes.status, current.completedAt, now);
      }
      // An update that changes nothing writes nothing (updatedAt stays).
      if (Object.keys(data).length === 0) return toRecord(current);
      return toRecord(await tx.task.update({ where: { id }, data: { ...data, updatedAt: now } }));
    }, TX_OPTIONS);
  }

  async addComment(userId: string, taskId: string, author: CommentAuthor, body: string): Promise<TaskCommentRecord> {
    return this.prisma.$transaction(async (tx) => {
      await lockTask(tx, userId, taskId);
      const count = await tx.taskComment.count({ where: { taskId } });
      if (count >= MAX_COMMENTS_PER_TASK) throw AppError.conflict(`A task may have at most ${MAX_COMMENTS_PER_TASK} comments`);
      const now = new Date();
      const comment = await tx.taskComment.create({
        data: { taskId, authorId: author.id, body, createdAt: now },
        include: { author: { select: { name: true, email: true } } },
      });
      // A comment is activity on the task: it moves up in "newest updated first".
      await tx.task.update({ where: { id: taskId }, data: { updatedAt: now } });
      return toCommentRecord(comment);
    }, TX_OPTIONS);
  }
}

async function lockTask(tx: Prisma.TransactionClient, userId: string, id: string): Promise<Task> {
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Task" WHERE id = ${id}::uuid AND "userId" = ${userId}::uuid FOR UPDATE`;
  if (locked.length === 0) throw AppError.notFound('Task');
  return tx.task.findUniqueOrThrow({ where: { id } });
}

function toRecord(row: Task): TaskRecord {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    assignee: row.assignee,
    dueDate: dateText(row.dueDate),
    labels: row.labels,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    completedAt: row.completedAt,
  };
}

function toCommentRecord(row: CommentWithAuthor): TaskCommentRecord {
  return {
    id: row.id,
    taskId: row.taskId,
    authorId: row.authorId,
    authorName: row.author.name ?? row.author.email,
    body: row.body,
    createdAt: row.createdAt,
  };
}

function toDbDate(date: string): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

function dateText(date: Date | null): string | null {
  return date ? date.toISOString().slice(0, 10) : null;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

function encodeTaskCursor(row: Pick<TaskRecord, 'id' | 'updatedAt'>): string {
  return encodeCursor({ u: row.updatedAt.toISOString(), id: row.id });
}

function decodeTaskCursor(cursor: string): { updatedAt: Date; id: string } {
  const { at, id } = decodeCursor(cursor, instantAndId('u', 'id'), 'tasks');
  return { updatedAt: at, id };
}
