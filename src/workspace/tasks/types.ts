import type { Page } from '../../pagination.ts';
import type { TaskPriority, TaskStatus } from '../../generated/prisma/enums.ts';

export type { TaskPriority, TaskStatus };

export const TASK_STATUSES = ['todo', 'in_progress', 'blocked', 'done', 'cancelled'] as const satisfies readonly TaskStatus[];
export const TASK_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const satisfies readonly TaskPriority[];

/** A task as every provider returns it (the built-in tables or a project-management tool). */
export interface TaskRecord {
  id: string;
  title: string;
  description: string | null;
  status: TaskStatus;
  priority: TaskPriority;
  assignee: string | null;
  /** ISO date `YYYY-MM-DD`. */
  dueDate: string | null;
  labels: string[];
  createdAt: Date;
  updatedAt: Date;
  /** Set when the task enters `done`, cleared when it leaves it. */
  completedAt: Date | null;
  /** Present when the provider loaded them (a single task); oldest first. */
  comments?: TaskCommentRecord[];
}

export interface TaskCommentRecord {
  id: string;
  taskId: string;
  authorId: string;
  authorName: string | null;
  body: string;
  createdAt: Date;
}

/** A page of tasks and the cursor that resumes after each row (the provider's own format). */
export interface TaskPage extends Page<TaskRecord> {
  cursorOf(row: TaskRecord): string;
}

export interface TaskFilter {
  /** Any of these statuses (empty or absent: all). */
  statuses?: readonly TaskStatus[];
  /** Exact assignee, case-insensitive. */
  assignee?: string;
  /** A normalised label the task must carry. */
  label?: string;
  limit: number;
  cursor?: string | null;
}

/** Validated and normalised by TaskService before any provider sees it. */
export interface NewTask {
  title: string;
  description: string | null;
  status: TaskStatus;
  priority: TaskPriority;
  assignee: string | null;
  dueDate: string | null;
  labels: string[];
}

/** Only the fields present change; `null` clears an optional field. */
export interface TaskChanges {
  title?: string;
  description?: string | null;
  status?: TaskStatus;
  priority?: TaskPriority;
  assignee?: string | null;
  dueDate?: string | null;
  labels?: string[];
}

export interface CommentAuthor {
  id: string;
  name: string | null;
}

/**
 * Where tasks live. Every method takes the owner's user id: a task of another user is
 * indistinguishable from a missing one (AppError.notFound('Task')). Providers receive validated
 * input; the status workflow (workflow.ts) is enforced by each provider against the task's
 * current status.
 */
export interface TaskProvider {
  readonly name: 'builtin' | 'http';
  list(userId: string, filter: TaskFilter): Promise<TaskPage>;
  /** One task with its comments, oldest first. */
  get(userId: string, id: string): Promise<TaskRecord & { comments: TaskCommentRecord[] }>;
  create(userId: string, task: NewTask): Promise<TaskRecord>;
  update(userId: string, id: string, changes: TaskChanges): Promise<TaskRecord>;
  addComment(userId: string, taskId: string, author: CommentAuthor, body: string): Promise<TaskCommentRecord>;
}
