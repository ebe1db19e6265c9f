import { useState, type FormEvent, type ReactNode } from 'react';
import { parseTags, tagsProblem } from './fields.ts';
import { PRIORITIES, type TaskFieldsInput, type TaskPriority } from './api.ts';
import { FormActions } from '../../components/form-actions.tsx';

/**
 * The fields of a task, for creating one and for editing one. Checks the API's limits before
 * sending; `onSubmit` resolves true when the task was saved (the form then empties itself if
 * `resetOnSave`).
 */
export function TaskForm(props: {
  initial?: Partial<TaskFieldsInput>;
  submitLabel: string;
  busyLabel: string;
  busy: boolean;
  resetOnSave?: boolean;
  onSubmit: (values: TaskFieldsInput) => Promise<boolean>;
  children?: ReactNode;
  extraActions?: ReactNode;
  ariaLabel: string;
}) {
  const initial = props.initial ?? {};
  const [title, setTitle] = useState(initial.title ?? '');
  const [description, setDescription] = useState(initial.description ?? '');
  const [priority, setPriority] = useState<TaskPriority>(initial.priority ?? 'medium');
  const [assignee, setAssignee] = useState(initial.assignee ?? '');
  const [dueDate, setDueDate] = useState(initial.dueDate ?? '');
  const [labels, setLabels] = useState((initial.labels ?? []).join(', '));
  const [invalid, setInvalid] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const parsedLabels = parseTags(labels);
    const problem = !title.trim()
      ? 'Give the task a title.'
      : title.trim().length > 500
        ? 'The title may be at most 500 characters.'
        : description.length > 20_000
          ? 'The description may be at most 20,000 characters.'
          : assignee.trim().length > 200
            ? 'The assignee may be at most 200 characters.'
            : tagsProblem(parsedLabels, 'labels');
    setInvalid(problem);
    if (problem) return;
    const saved = await props.onSubmit({
      title: title.trim(),
      description: description.trim() ? description : null,
      priority,
      assignee: assignee.trim() || null,
      dueDate: dueDate || null,
      labels: parsedLabels,
    });
    if (saved && props.resetOnSave) {
      setTitle('');
      setDescription('');
      setPriority('medium');
      setAssignee('');
      setDueDate('');
      setLabels('');
    }
  }

  return (
    <form className="stack" onSubmit={submit} noValidate aria-label={props.ariaLabel}>
      <label>
        Title
        <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={500} required />
      </label>
      <label>
        Description <span className="hint">(optional)</span>
        <textarea value={description} onChange={(e) => setDescription(e.target.value)} maxLength={20_000} rows={3} />
      </label>
      <div className="form-row">
        <label>
          Priority
          <select value={priority} onChange={(e) => setPriority(e.target.value as TaskPriority)}>
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {p[0].toUpperCase() + p.slice(1)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Assignee <span className="hint">(optional)</span>
          <input value={assignee} onChange={(e) => setAssignee(e.target.value)} maxLength={200} />
        </label>
        <label>
          Due date <span className="hint">(optional)</span>
          <input type="date" value={dueDate} onChange={(e) => setDueDate(e.target.value)} />
        </label>
        <label className="grow">
          Labels <span className="hint">(comma-separated)</span>
          <input value={labels} onChange={(e) => setLabels(e.target.value)} placeholder="e.g. close, returns" />
        </label>
      </div>
      {invalid && (
        <div className="notice notice-error" role="alert">
          {invalid}
        </div>
      )}
      {props.children}
      <FormActions busy={props.busy} submitLabel={props.submitLabel} busyLabel={props.busyLabel}>
        {props.extraActions}
      </FormActions>
    </form>
  );
}
