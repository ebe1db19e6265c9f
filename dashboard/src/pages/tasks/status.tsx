import { useId } from 'react';
import { useMutation, type CombinedError } from 'urql';
import { describeError } from '../../api/errors.ts';
import { Badge, toneOf } from '../../components/badge.tsx';
import { ErrorNotice } from '../../components/notice.tsx';
import { MOVES, STATUS_LABELS, TASK_LISTS, UpdateTask, moveLabel, type TaskStatus, type TaskSummary } from './api.ts';

export function StatusBadge({ status }: { status: TaskStatus }) {
  return <Badge tone={toneOf(status)}>{STATUS_LABELS[status]}</Badge>;
}

/**
 * A refused move in words. The workflow's CONFLICT names the statuses in API spelling; this says
 * what happened and what to do (the task was probably changed elsewhere: its status is reloaded).
 */
export function moveError(error: CombinedError | undefined, title: string, to: TaskStatus): string | null {
  if (!error) return null;
  const conflict = error.graphQLErrors.find((e) => e.extensions?.code === 'CONFLICT');
  if (!conflict) return `Could not move “${title}” to ${STATUS_LABELS[to]}: ${describeError(error)}`;
  return `“${title}” cannot move to ${STATUS_LABELS[to]} from where it is now (the service said: ${conflict.message}). It was probably changed elsewhere; its current status is shown again.`;
}

/** A hook for moving a task: the mutation (refetching every list that shows tasks) and its error in words. */
export function useMoveTask() {
  const [state, update] = useMutation(UpdateTask);
  const move = (task: Pick<TaskSummary, 'id'>, to: TaskStatus) => update({ input: { id: task.id, status: to } }, TASK_LISTS);
  return { state, move };
}

/** In a table row: the status as a select offering the moves the workflow allows. */
export function StatusSelect({ task, onMoved, onRefused }: { task: TaskSummary; onMoved: (title: string, to: TaskStatus) => void; onRefused: () => void }) {
  const { state, move } = useMoveTask();
  const errorId = useId();
  const target = state.operation?.variables.input.status;
  const message = state.error && target ? moveError(state.error, task.title, target) : null;
  return (
    <div className="status-cell">
      <select
        aria-label={`Status of ${task.title}`}
        aria-describedby={message ? errorId : undefined}
        className={`status-select status-${task.status}`}
        value={task.status}
        disabled={state.fetching}
        onChange={async (e) => {
          const to = e.target.value as TaskStatus;
          const result = await move(task, to);
          if (result.error) onRefused();
          else onMoved(task.title, to);
        }}
      >
        <option value={task.status}>{STATUS_LABELS[task.status]}</option>
        {MOVES[task.status].map((to) => (
          <option key={to} value={to}>
            → {moveLabel(task.status, to)} ({STATUS_LABELS[to]})
          </option>
        ))}
      </select>
      {message && (
        <span id={errorId}>
          <ErrorNotice error={message} />
        </span>
      )}
    </div>
  );
}
