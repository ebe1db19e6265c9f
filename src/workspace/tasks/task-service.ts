import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import { AppError } from '../../errors.ts';
import { boundedText, LIMITS, normalizeTags, optionalText } from '../validation.ts';
import { BuiltinTaskProvider } from './builtin-provider.ts';
import { HttpTaskProvider } from './http-provider.ts';
import type { CommentAuthor, TaskChanges, TaskPage, TaskCommentRecord, TaskPriority, TaskProvider, TaskRecord, TaskStatus } from './types.ts';

export const ASSIGNEE_LENGTH = 200;

export interface CreateTaskInput {
  title: string;
  description?: string | null;
  status?: TaskStatus | null;
  priority?: TaskPriority | null;
  assignee?: string | null;
  dueDate?: string | null;
  labels?: readonly string[] | null;
}

/** Absent (undefined) leaves a field alone; null clears an optional one. */
export interface UpdateTaskInput {
  title?: string | null;
  description?: string | null;
  status?: TaskStatus | null;
  priority?: TaskPriority | null;
  assignee?: string | null;
  dueDate?: string | null;
  labels?: readonly string[] | null;
}

export interface ListTasksInput {
  statuses?: readonly TaskStatus[] | null;
  assignee?: string | null;
  label?: string | null;
  limit: number;
  cursor?: string | null;
}

/**
 * Tasks of the caller, whichever provider holds them. Validates and normalises every input here
 * (so both providers see the same clean values) and leaves storage and the workflow check against
 * the current status to the provider. Knows nothing about HTTP; takes the user id explicitly.
 */
export class TaskService {
  constructor(readonly provider: TaskProvider) {}

  get providerName(): TaskProvider['name'] {
    return this.provider.name;
  }

  list(userId: string, input: ListTasksInput): Promise<TaskPage> {
    const assignee = input.assignee?.trim();
    const label = input.label == null || input.label.trim() === '' ? undefined : normalizeTags([input.label], 'label')[0];
    return this.provider.list(userId, {
      statuses: input.statuses ? [...new Set(input.statuses)] : undefined,
      assignee: assignee ? assignee : undefined,
      label,
      limit: input.limit,
      cursor: input.cursor,
    });
  }

  get(userId: string, id: string): Promise<TaskRecord & { comments: TaskCommentRecord[] }> {
    return this.provider.get(userId, id);
  }

  async comments(userId: string, taskId: string): Promise<TaskCommentRecord[]> {
    return (await this.provider.get(userId, taskId)).comments;
  }

  create(userId: string, input: CreateTaskInput): Promise<TaskRecord> {
    return this.provider.create(userId, {
      title: boundedText(input.title, 'title', LIMITS.titleLength),
      description: optionalText(input.description, 'description', LIMITS.descriptionLength),
      status: input.status ?? 'todo',
      priority: input.priority ?? 'medium',
      assignee: optionalText(input.assignee, 'assignee', ASSIGNEE_LENGTH),
      dueDate: input.dueDate ?? null,
      labels: normalizeTags(input.labels ?? [], 'labels'),
    });
  }

  update(userId: string, id: string, input: UpdateTaskInput): Promise<TaskRecord> {
    const changes: TaskChanges = {};
    if (input.title !== undefined) changes.title = boundedText(required(input.title, 'title'), 'title', LIMITS.titleLength);
    if (input.description !== undefined) changes.description = optionalText(input.description, 'description', LIMITS.descriptionLength);
    if (input.status !== undefined) changes.status = required(input.status, 'status');
    if (input.priority !== undefined) changes.priority = required(input.priority, 'priority');
    if (input.assignee !== undefined) changes.assignee = optionalText(input.assignee, 'assignee', ASSIGNEE_LENGTH);
    if (input.dueDate !== undefined) changes.dueDate = input.dueDate;
    if (input.labels !== undefined) changes.labels = normalizeTags(input.labels ?? [], 'labels');
    return this.provider.update(userId, id, changes);
  }

  addComment(userId: string, taskId: string, author: CommentAuthor, body: string): Promise<TaskCommentRecord> {
    return this.provider.addComment(userId, taskId, author, boundedText(body, 'body', LIMITS.commentLength));
  }
}

function required<T>(value: T | null, field: string): T {
  if (value === null) throw AppError.badInput(field, 'must not be null');
  return value;
}

/** The provider TASK_PROVIDER selects: `builtin` (default) or `http` (PM_API_URL, PM_API_KEY, PM_API_TIMEOUT). */
export function createTaskService(config: Config['tasks'], prisma: PrismaClient, log?: Logger): TaskService {
  if (config.provider === 'http') {
    if (!config.apiUrl) throw new Error('PM_API_URL is required when TASK_PROVIDER=http');
    return new TaskService(new HttpTaskProvider({ apiUrl: config.apiUrl, apiKey: config.apiKey, timeoutMs: config.timeoutMs, log }));
  }
  return new TaskService(new BuiltinTaskProvider(prisma));
}
