import { graphql, type ResultOf } from '../../api/graphql.ts';
import type { Tone } from '../../components/badge.tsx';

const SummaryFields = graphql(`fragment TaskSummaryFields on Task { id title status priority assignee dueDate labels updatedAt }`);
const CommentFields = graphql(`fragment TaskCommentFields on TaskComment { id authorName body createdAt }`);
const TaskFields = graphql(`fragment TaskFields on Task { ...TaskSummaryFields description createdAt completedAt comments { ...TaskCommentFields } }`, [
  SummaryFields,
  CommentFields,
]);

export type TaskSummary = ResultOf<typeof SummaryFields>;
export type TaskStatus = TaskSummary['status'];
export type TaskPriority = TaskSummary['priority'];
export type Task = ResultOf<typeof TaskFields>;

/** The editable fields, as CreateTaskInput / UpdateTaskInput take them (null clears on update). */
export interface TaskFieldsInput {
  title: string;
  description: string | null;
  priority: TaskPriority;
  assignee: string | null;
  dueDate: string | null;
  labels: string[];
}

export const TASKS_PAGE_SIZE = 25;

export const TasksQuery = graphql(
  `
  query Tasks($first: Int, $after: String, $status: [TaskStatus!], $assignee: String, $label: String) {
    tasks(first: $first, after: $after, status: $status, assignee: $assignee, label: $label) { edges { node { ...TaskSummaryFields } } pageInfo { hasNextPage endCursor } }
  }
`,
  [SummaryFields],
);

export const TaskQuery = graphql(`query Task($id: UUID!) { task(id: $id) { ...TaskFields } }`, [TaskFields]);

export const CreateTask = graphql(`mutation CreateTask($input: CreateTaskInput!) { createTask(input: $input) { ...TaskSummaryFields } }`, [SummaryFields]);

export const UpdateTask = graphql(`mutation UpdateTask($input: UpdateTaskInput!) { updateTask(input: $input) { ...TaskFields } }`, [TaskFields]);

export const AddTaskComment = graphql(`mutation AddTaskComment($input: AddTaskCommentInput!) { addTaskComment(input: $input) { ...TaskCommentFields } }`, [
  CommentFields,
]);

/** A new comment changes the task (its comments, its updatedAt): refetch what shows tasks. */
export const TASK_LISTS = { additionalTypenames: ['Task', 'QueryTasksConnection'] };

export const STATUSES: TaskStatus[] = ['todo', 'in_progress', 'blocked', 'done', 'cancelled'];
export const OPEN_STATUSES: TaskStatus[] = ['todo', 'in_progress', 'blocked'];
export const PRIORITIES: TaskPriority[] = ['urgent', 'high', 'medium', 'low'];

export const STATUS_LABELS: Record<TaskStatus, string> = {
  todo: 'To do',
  in_progress: 'In progress',
  blocked: 'Blocked',
  done: 'Done',
  cancelled: 'Cancelled',
};

/** The workflow the service enforces (schema: TaskStatus); other moves are CONFLICT. */
export const MOVES: Record<TaskStatus, TaskStatus[]> = {
  todo: ['in_progress', 'cancelled'],
  in_progress: ['done', 'blocked', 'cancelled'],
  blocked: ['in_progress', 'cancelled'],
  done: ['in_progress'],
  cancelled: ['todo'],
};

/** What a move is called on its button. */
export function moveLabel(from: TaskStatus, to: TaskStatus): string {
  if (to === 'in_progress') return from === 'todo' ? 'Start' : from === 'blocked' ? 'Unblock' : 'Reopen';
  if (to === 'todo') return 'Reopen';
  if (to === 'done') return 'Mark done';
  if (to === 'blocked') return 'Mark blocked';
  return 'Cancel task';
}

export const PRIORITY_TONES: Record<TaskPriority, Tone> = { urgent: 'danger', high: 'warning', medium: 'neutral', low: 'info' };

/** Due before today (UTC calendar date, as the API stores it) and still open. */
export function isOverdue(task: Pick<TaskSummary, 'dueDate' | 'status'>): boolean {
  return !!task.dueDate && OPEN_STATUSES.includes(task.status) && task.dueDate < new Date().toISOString().slice(0, 10);
}
