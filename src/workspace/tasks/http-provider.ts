import { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { checkTransition } from './workflow.ts';
import { joinUrl, malformed, upstreamJson, upstreamStatusError, type UpstreamRequest } from './upstream.ts';
import {
  TASK_PRIORITIES,
  TASK_STATUSES,
  type CommentAuthor,
  type NewTask,
  type TaskChanges,
  type TaskCommentRecord,
  type TaskFilter,
  type TaskPage,
  type TaskProvider,
  type TaskRecord,
} from './types.ts';

const LABEL = 'Task provider';

/**
 * A project-management tool's HTTP API (documented in docs/workspace.md, "Tasks"):
 *
 *   GET   {PM_API_URL}/tasks?owner=&status=a,b&assignee=&label=&limit=&cursor=  -> 200 {"tasks": [Task], "next_cursor": string|null}
 *   POST  {PM_API_URL}/tasks                 body NewTask + owner              -> 201 Task
 *   GET   {PM_API_URL}/tasks/{id}                                              -> 200 Task + "comments": [Comment] (oldest first)
 *   PATCH {PM_API_URL}/tasks/{id}            body: the changed fields           -> 200 Task
 *   POST  {PM_API_URL}/tasks/{id}/comments   body {author_id, author_name, body} -> 201 Comment
 *
 * `Authorization: Bearer PM_API_KEY`, JSON, snake_case, ids are UUIDs. Tasks carry the `owner`
 * (our user id): lists ask for the caller's own, and a task whose owner is someone else is
 * answered 404 like a missing one, whatever the tool returned.
 *
 * Upstream 404 -> 404 `Task not found`, 409 -> 409, any other non-2xx -> 502
 * `Task provider error: <status>`, timeout (PM_API_TIMEOUT) -> 504, a body that does not match the
 * API -> 502 `Task provider error: malformed response`.
 */
export interface HttpTaskProviderOptions {
  apiUrl: string;
  apiKey?: string;
  timeoutMs: number;
  log?: Logger;
}

const isoInstant = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), 'not an ISO timestamp')
  .transform((value) => new Date(value));
const uuid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/)
  .transform((value) => value.toLowerCase());

const CommentSchema = z.object({
  id: uuid,
  task_id: uuid.optional(),
  author_id: uuid,
  author_name: z.string().nullable().optional(),
  body: z.string(),
  created_at: isoInstant,
});

const TaskSchema = z.object({
  id: uuid,
  owner: z.string(),
  title: z.string(),
  description: z.string().nullable().optional(),
  status: z.enum(TASK_STATUSES),
  priority: z.enum(TASK_PRIORITIES),
  assignee: z.string().nullable().optional(),
  due_date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .nullable()
    .optional(),
  labels: z.array(z.string()).default([]),
  created_at: isoInstant,
  updated_at: isoInstant,
  completed_at: isoInstant.nullable().optional(),
});

const TaskWithCommentsSchema = TaskSchema.extend({ comments: z.array(CommentSchema).default([]) });
const TaskListSchema = z.object({ tasks: z.array(TaskSchema), next_cursor: z.string().nullable().optional() });

type UpstreamTask = z.infer<typeof TaskSchema>;
type UpstreamComment = z.infer<typeof CommentSchema>;

export class HttpTaskProvider implements TaskProvider {
  readonly name = 'http' as const;

  constructor(private readonly options: HttpTaskProviderOptions) {}

  async list(userId: string, filter: TaskFilter): Promise<TaskPage> {
    const query = new URLSearchParams({ owner: userId, limit: String(filter.limit) });
    if (filter.statuses && filter.statuses.length > 0) query.set('status', filter.statuses.join(','));
    if (filter.assignee) query.set('assignee', filter.assignee);
    if (filter.label) query.set('label', filter.label);
    if (filter.cursor) query.set('cursor', filter.cursor);
    const json = await this.call({ method: 'GET', path: `/tasks?${query.toString()}` });
    const list = this.parse(TaskListSchema, json);
    // Never show another owner's task, even if the tool returned one.
    const rows = list.tasks
      .filter((task) => task.owner === userId)
      .slice(0, filter.limit)
      .map(toRecord);
    const nextCursor = list.next_cursor ?? null;
    const last = rows.at(-1);
    // The tool's cursors resume after a page, not after any row: every edge but the last has none.
    return { rows, hasMore: nextCursor !== null, nextCursor, cursorOf: (row) => (row === last && nextCursor ? nextCursor : '') };
  }

  async get(userId: string, id: string): Promise<TaskRecord & { comments: TaskCommentRecord[] }> {
    const task = await this.fetchOwned(userId, id);
    return { ...toRecord(task), comments: task.comments.map((comment) => toCommentRecord(comment, task.id)) };
  }

  async create(userId: string, task: NewTask): Promise<TaskRecord> {
    const json = await this.call({
      method: 'POST',
      path: '/tasks',
      body: {
        owner: userId,
        title: task.title,
        description: task.description,
        status: task.status,
        priority: task.priority,
        assignee: task.assignee,
        due_date: task.dueDate,
        labels: task.labels,
      },
    });
    return toRecord(this.parse(TaskSchema, json));
  }

  async update(userId: string, id: string, changes: TaskChanges): Promise<TaskRecord> {
    const current = await this.fetchOwned(userId, id);
    if (changes.status !== undefined) checkTransition(current.status, changes.status);
    const body: Record<string, unknown> = {};
    if (changes.title !== undefined) body.title = changes.title;
    if (changes.description !== undefined) body.description = changes.description;
    if (changes.status !== undefined) body.status = changes.status;
    if (changes.priority !== undefined) body.priority = changes.priority;
    if (changes.assignee !== undefined) body.assignee = changes.assignee;
    if (changes.dueDate !== undefined) body.due_date = changes.dueDate;
    if (changes.labels !== undefined) body.labels = changes.labels;
    if (Object.keys(body).length === 0) return toRecord(current);
    const json = await this.call({ method: 'PATCH', path: `/tasks/${encodeURIComponent(id)}`, body });
    return toRecord(this.parse(TaskSchema, json));
  }

  async addComment(userId: string, taskId: string, author: CommentAuthor, body: string): Promise<TaskCommentRecord> {
    await this.fetchOwned(userId, taskId);
    const json = await this.call({
      method: 'POST',
      path: `/tasks/${encodeURIComponent(taskId)}/comments`,
      body: { author_id: author.id, author_name: author.name, body },
    });
    return toCommentRecord(this.parse(CommentSchema, json), taskId);
  }

  private async fetchOwned(userId: string, id: string) {
    const json = await this.call({ method: 'GET', path: `/tasks/${encodeURIComponent(id)}` });
    const task = this.parse(TaskWithCommentsSchema, json);
    if (task.owner !== userId || task.id !== id.toLowerCase()) throw AppError.notFound('Task');
    return task;
  }

  private async call(request: { method: UpstreamRequest['method']; path: string; body?: unknown }): Promise<unknown> {
    const { status, json } = await upstreamJson(
      LABEL,
      {
        method: request.method,
        url: joinUrl(this.options.apiUrl, request.path),
        apiKey: this.options.apiKey,
        body: request.body,
        timeoutMs: this.options.timeoutMs,
      },
      this.options.log,
    );
    if (status >= 200 && status <= 299) return json;
    if (status === 404) throw AppError.notFound('Task');
    if (status === 409) throw AppError.conflict('The project-management tool refused the change (conflict)');
    throw upstreamStatusError(LABEL, status);
  }

  private parse<T extends z.ZodType>(schema: T, json: unknown): z.infer<T> {
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw malformed(LABEL, this.options.log, parsed.error.issues[0]?.message);
    return parsed.data;
  }
}

function toRecord(task: UpstreamTask): TaskRecord {
  return {
    id: task.id,
    title: task.title,
    description: task.description ?? null,
    status: task.status,
    priority: task.priority,
    assignee: task.assignee ?? null,
    dueDate: task.due_date ?? null,
    labels: task.labels,
    createdAt: task.created_at,
    updatedAt: task.updated_at,
    completedAt: task.completed_at ?? null,
  };
}

function toCommentRecord(comment: UpstreamComment, taskId: string): TaskCommentRecord {
  return {
    id: comment.id,
    taskId: comment.task_id ?? taskId,
    authorId: comment.author_id,
    authorName: comment.author_name ?? null,
    body: comment.body,
    createdAt: comment.created_at,
  };
}
