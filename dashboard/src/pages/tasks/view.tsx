import { useState } from 'react';
import { Link } from 'wouter';
import { useMutation, useQuery } from 'urql';
import { Page, Panel } from '../../components/page.tsx';
import { ErrorNotice, Loading, SuccessNotice } from '../../components/notice.tsx';
import { Badge } from '../../components/badge.tsx';
import { formatDate, formatDateTime } from '../../components/format.ts';
import { UUID_PATTERN } from '../transcripts/api.ts';
import { TaskForm } from './task-form.tsx';
import { Comments } from './comments.tsx';
import { StatusBadge, moveError, useMoveTask } from './status.tsx';
import { MOVES, PRIORITY_TONES, STATUS_LABELS, TASK_LISTS, TaskQuery, UpdateTask, isOverdue, moveLabel, type Task, type TaskStatus } from './api.ts';

const BACK = <Link href="/tasks">← All tasks</Link>;

export function TaskView({ id }: { id: string }) {
  const valid = UUID_PATTERN.test(id);
  const [{ data, error, fetching }, refresh] = useQuery({ query: TaskQuery, variables: { id }, pause: !valid });
  const task = data?.task;
  if (!valid || (error && !task)) {
    return (
      <Page title="Task">
        {BACK}
        <ErrorNotice error={valid ? error : 'There is no task at this address.'} title="Could not open the task" />
      </Page>
    );
  }
  if (!task) {
    return (
      <Page title="Task">
        {BACK}
        {fetching && <Loading label="Loading the task…" />}
      </Page>
    );
  }
  return (
    <Page
      title={task.title}
      intro={
        <>
          Created {formatDateTime(task.createdAt)} · updated {formatDateTime(task.updatedAt)}
        </>
      }
    >
      {BACK}
      <div className="task-layout">
        <aside className="task-aside" aria-label="Status and details">
          <StatusPanel task={task} onRefused={() => refresh({ requestPolicy: 'network-only' })} />
          <DetailsPanel task={task} />
        </aside>
        <div className="task-main">
          <Panel id="description" title="Description">
            {task.description ? <p className="prewrap">{task.description}</p> : <p className="empty">No description.</p>}
          </Panel>
          <Comments task={task} />
        </div>
      </div>
    </Page>
  );
}

function StatusPanel({ task, onRefused }: { task: Task; onRefused: () => void }) {
  const { state, move } = useMoveTask();
  const [moved, setMoved] = useState<TaskStatus | null>(null);
  const target = state.operation?.variables.input.status;
  async function onMove(to: TaskStatus) {
    setMoved(null);
    const result = await move(task, to);
    if (result.error) onRefused();
    else setMoved(to);
  }
  return (
    <Panel id="status" title="Status">
      <p className="task-status">
        <StatusBadge status={task.status} />
        {task.completedAt && <span className="hint"> since {formatDateTime(task.completedAt)}</span>}
      </p>
      <div className="toolbar" role="group" aria-label="Move the task">
        {MOVES[task.status].map((to) => (
          <button
            key={to}
            type="button"
            className={to === 'cancelled' ? 'button-secondary' : undefined}
            disabled={state.fetching}
            onClick={() => void onMove(to)}
          >
            {moveLabel(task.status, to)}
          </button>
        ))}
      </div>
      {moved && <SuccessNotice>Moved to {STATUS_LABELS[moved]}.</SuccessNotice>}
      {state.error && target && <ErrorNotice error={moveError(state.error, task.title, target)} />}
    </Panel>
  );
}

function DetailsPanel({ task }: { task: Task }) {
  const [editing, setEditing] = useState(false);
  const [saving, update] = useMutation(UpdateTask);
  const [saved, setSaved] = useState(false);
  return (
    <Panel
      id="details"
      title="Details"
      actions={
        !editing && (
          <button
            type="button"
            className="button-secondary button-small"
            onClick={() => {
              setEditing(true);
              setSaved(false);
            }}
          >
            Edit
          </button>
        )
      }
    >
      {saved && <SuccessNotice>Saved.</SuccessNotice>}
      {editing ? (
        <TaskForm
          ariaLabel="Edit the task"
          initial={task}
          submitLabel="Save"
          busyLabel="Saving…"
          busy={saving.fetching}
          onSubmit={async (values) => {
            const result = await update({ input: { id: task.id, ...values } }, TASK_LISTS);
            if (!result.error) {
              setEditing(false);
              setSaved(true);
            }
            return !result.error;
          }}
          extraActions={
            <button type="button" className="button-secondary" onClick={() => setEditing(false)}>
              Cancel
            </button>
          }
        >
          <ErrorNotice error={saving.error} title="Could not save the task" />
        </TaskForm>
      ) : (
        <dl className="facts">
          <dt>Priority</dt>
          <dd>
            <Badge tone={PRIORITY_TONES[task.priority]}>{task.priority}</Badge>
          </dd>
          <dt>Assignee</dt>
          <dd>{task.assignee ?? <span className="hint">nobody</span>}</dd>
          <dt>Due</dt>
          <dd>
            {formatDate(task.dueDate, 'no date')}
            {isOverdue(task) && <span className="overdue"> overdue</span>}
          </dd>
          <dt>Labels</dt>
          <dd>
            {task.labels.length > 0 ? (
              task.labels.map((l) => (
                <span key={l} className="tag">
                  {l}
                </span>
              ))
            ) : (
              <span className="hint">none</span>
            )}
          </dd>
        </dl>
      )}
    </Panel>
  );
}
