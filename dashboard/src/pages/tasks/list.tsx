import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { useMutation, useQuery } from 'urql';
import { Page, Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from '../../components/notice.tsx';
import { Badge } from '../../components/badge.tsx';
import { Pager, useCursorPager } from '../../components/pager.tsx';
import { formatDate, formatDateTime } from '../../components/format.ts';
import { useDebounced } from '../../components/use-debounced.ts';
import { TaskForm } from './task-form.tsx';
import { StatusSelect } from './status.tsx';
import {
  CreateTask,
  OPEN_STATUSES,
  TASK_LISTS,
  PRIORITY_TONES,
  STATUSES,
  STATUS_LABELS,
  TASKS_PAGE_SIZE,
  TasksQuery,
  isOverdue,
  type TaskStatus,
} from './api.ts';

/** The status filter's choices: every status, the open ones, or one. */
const STATUS_CHOICES: { value: string; label: string; statuses: TaskStatus[] | null }[] = [
  { value: 'open', label: 'Open (to do, in progress, blocked)', statuses: OPEN_STATUSES },
  { value: 'all', label: 'All statuses', statuses: null },
  ...STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s], statuses: [s] })),
];

export function TaskList() {
  const pager = useCursorPager();
  const [statusChoice, setStatusChoice] = useState('open');
  const [assigneeText, setAssigneeText] = useState('');
  const [labelText, setLabelText] = useState('');
  const assignee = useDebounced(assigneeText.trim());
  const label = useDebounced(labelText.trim().toLowerCase());
  const statuses = STATUS_CHOICES.find((c) => c.value === statusChoice)?.statuses ?? null;
  const { reset } = pager;
  // A new filter starts again from the first page.
  useEffect(reset, [statusChoice, assignee, label, reset]);

  const [{ data, error, fetching }, refresh] = useQuery({
    query: TasksQuery,
    variables: { first: TASKS_PAGE_SIZE, after: pager.after, status: statuses, assignee: assignee || null, label: label || null },
  });
  const [creating, setCreating] = useState(false);
  const [creation, createTask] = useMutation(CreateTask);
  const [created, setCreated] = useState<{ id: string; title: string } | null>(null);
  const [moved, setMoved] = useState<string | null>(null);
  const tasks = data?.tasks.edges.map((e) => e.node) ?? [];
  const filtered = statusChoice !== 'all' || !!assignee || !!label;

  return (
    <Page
      title="Tasks"
      intro="Your tasks, most recently changed first. Open one to read and add comments."
      actions={
        <button type="button" aria-expanded={creating} aria-controls="new-task" onClick={() => setCreating((open) => !open)}>
          {creating ? 'Close the form' : 'New task'}
        </button>
      }
    >
      {created && (
        <SuccessNotice>
          Task “<Link href={`/tasks/${created.id}`}>{created.title}</Link>” created.
        </SuccessNotice>
      )}
      {creating && (
        <Panel id="new-task" title="New task">
          <TaskForm
            ariaLabel="New task"
            submitLabel="Create task"
            busyLabel="Creating…"
            busy={creation.fetching}
            resetOnSave
            onSubmit={async (values) => {
              setCreated(null);
              const result = await createTask({ input: values }, TASK_LISTS);
              if (result.data) setCreated(result.data.createTask);
              return !!result.data;
            }}
          >
            <ErrorNotice error={creation.error} title="Could not create the task" />
          </TaskForm>
        </Panel>
      )}
      <Panel id="task-list" title="Task list">
        <form className="form-row filters" role="search" aria-label="Filter tasks" onSubmit={(e) => e.preventDefault()}>
          <label>
            Status
            <select value={statusChoice} onChange={(e) => setStatusChoice(e.target.value)}>
              {STATUS_CHOICES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Assignee
            <input type="search" value={assigneeText} onChange={(e) => setAssigneeText(e.target.value)} placeholder="Exact name" list="task-assignees" />
          </label>
          <label>
            Label
            <input type="search" value={labelText} onChange={(e) => setLabelText(e.target.value)} placeholder="e.g. returns" list="task-labels" />
          </label>
          {filtered && (
            <button
              type="button"
              className="button-secondary"
              onClick={() => {
                setStatusChoice('all');
                setAssigneeText('');
                setLabelText('');
              }}
            >
              Show all tasks
            </button>
          )}
          {/* Suggestions from the tasks on screen: assignee and label filters are exact. */}
          <datalist id="task-assignees">
            {[...new Set(tasks.map((t) => t.assignee).filter((a): a is string => !!a))].map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
          <datalist id="task-labels">
            {[...new Set(tasks.flatMap((t) => t.labels))].map((l) => (
              <option key={l} value={l} />
            ))}
          </datalist>
        </form>
        <ErrorNotice error={error} title="Could not load your tasks" />
        {moved && <SuccessNotice>{moved}</SuccessNotice>}
        {fetching && !data && <Loading label="Loading tasks…" />}
        {data && tasks.length === 0 && (
          <EmptyState>
            {filtered ? 'No task matches these filters.' : pager.page === 1 ? 'You have no tasks yet. Create one with “New task”.' : 'No more tasks.'}
          </EmptyState>
        )}
        {tasks.length > 0 && (
          <div className="table-wrap" tabIndex={0}>
            <table className="data tasks-table stack" aria-label="Tasks">
              <thead>
                <tr>
                  <th scope="col">Task</th>
                  <th scope="col">Status</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Due</th>
                  <th scope="col">Labels</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {tasks.map((task) => (
                  <tr key={task.id}>
                    <td className="task-title">
                      <Link href={`/tasks/${task.id}`}>{task.title}</Link>
                    </td>
                    <td data-label="Status">
                      <StatusSelect
                        task={task}
                        onMoved={(title, to) => setMoved(`“${title}” moved to ${STATUS_LABELS[to]}.`)}
                        onRefused={() => {
                          setMoved(null);
                          refresh({ requestPolicy: 'network-only' });
                        }}
                      />
                    </td>
                    <td data-label="Priority">
                      <Badge tone={PRIORITY_TONES[task.priority]}>{task.priority}</Badge>
                    </td>
                    <td data-label="Assignee">
                      {task.assignee ? (
                        <button type="button" className="link-button" onClick={() => setAssigneeText(task.assignee ?? '')}>
                          {task.assignee}
                          <span className="visually-hidden"> (show only this assignee’s tasks)</span>
                        </button>
                      ) : (
                        <span className="hint">—</span>
                      )}
                    </td>
                    <td data-label="Due" className="nowrap">
                      {formatDate(task.dueDate)}
                      {isOverdue(task) && <span className="overdue"> overdue</span>}
                    </td>
                    <td data-label="Labels">
                      {task.labels.map((l) => (
                        <button key={l} type="button" className="tag tag-button" onClick={() => setLabelText(l)}>
                          {l}
                          <span className="visually-hidden"> (show only tasks with this label)</span>
                        </button>
                      ))}
                    </td>
                    <td data-label="Updated" className="nowrap">
                      {formatDateTime(task.updatedAt)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager pager={pager} pageInfo={data?.tasks.pageInfo} label="Tasks" />
      </Panel>
    </Page>
  );
}
