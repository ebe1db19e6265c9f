import { gql } from 'urql';
import { PAGE_INFO_FIELDS, type PageInfo } from '../../components/pager.tsx';
import type { Tone } from '../../components/badge.tsx';

export type TaskStatus = 'todo' | 'in_progress' | 'blocked' | 'done' | 'cancelled';
export type TaskPriority = 'low' | 'medium' | 'high' | 'urgent';

export interface TaskSummary {
  id: string;
  title: string;
  status: TaskStatus;
  priority: TaskPriority;
  assignee: string | null;
  dueDate: string | null;
  labels: string[];
  updatedAt: string;
}

export interface TaskComment {
  id: string;
  authorName: string | null;
  body: string;
  createdAt: string;
}

export interface Task extends TaskSummary {
  description: string | null;
  createdAt: string;
  completedAt: string | null;
  comments: TaskComment[];
}

/** The editable fields, as CreateTaskInput / UpdateTaskInput take them (null clears on update). */
export interface TaskFieldsInput {
  title: string;
  description: string | null;
  priority: TaskPriority;
  assignee: string | null;
  dueDate: string | null;
  labels: string[];
}

export interface TaskFilters {
  status: TaskStatus[] | null;
  assignee: string | null;
  label: string | null;
}

const summaryFields = 'id title status priority assignee dueDate labels updatedAt';
const taskFields = `${summaryFields} description createdAt completedAt comments { id authorName body createdAt }`;

export const TASKS_PAGE_SIZE = 25;

export const TasksQuery = gql<
  { tasks: { edges: { node: TaskSummary }[]; pageInfo: PageInfo } },
  { first: number; after: string | null; status: TaskStatus[] | null; assignee: string | null; label: string | null }
>(`
  query Tasks($first: Int, $after: String, $status: [TaskStatus!], $assignee: String, $label: String) {
    tasks(first: $first, after: $after, status: $status, assignee: $assignee, label: $label) { edges { node { ${summaryFields} } } ${PAGE_INFO_FIELDS} }
  }
`);

export const TaskQuery = gql<{ task: Task }, { id: string }>(`query Task($id: UUID!) { task(id: $id) { ${taskFields} } }`);

export const CreateTask = gql<{ createTask: TaskSummary }, { input: Partial<TaskFieldsInput> & { title: string } }>(`
  mutation CreateTask($input: CreateTaskInput!) { createTask(input: $input) { ${summaryFields} } }
`);

export const UpdateTask = gql<{ updateTask: Task }, { input: Partial<TaskFieldsInput> & { id: string; status?: TaskStatus } }>(`
  mutation UpdateTask($input: UpdateTaskInput!) { updateTask(input: $input) { ${taskFields} } }
`);

export const AddTaskComment = gql<{ addTaskComment: TaskComment }, { input: { taskId: string; body: string } }>(`
  mutation AddTaskComment($input: AddTaskCommentInput!) { addTaskComment(input: $input) { id authorName body createdAt } }
`);

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
