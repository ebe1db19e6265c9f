import { useState, type FormEvent } from 'react';
import { useMutation, type CombinedError } from 'urql';
import { Panel } from '../../components/page.tsx';
import { ErrorNotice, SuccessNotice } from '../../components/notice.tsx';
import { isWebUrl, localDateTimeToIso, parseTags, tagsProblem } from '../tasks/fields.ts';
import { CreateArticle, NEWS_LISTS, type CreateArticleInput } from './api.ts';

const EMPTY = { url: '', title: '', source: '', publishedAt: '', tags: '', summary: '', body: '' };

/** Checks the API's documented limits, so the person learns what to fix before anything is sent. */
function problemWith(form: typeof EMPTY): string | null {
  if (!form.url.trim()) return 'Give the article’s address (URL).';
  if (!isWebUrl(form.url.trim())) return 'The address must start with http:// or https://.';
  if (form.url.trim().length > 2048) return 'The address may be at most 2,048 characters.';
  if (!form.title.trim()) return 'Give the article a title.';
  if (form.title.trim().length > 500) return 'The title may be at most 500 characters.';
  if (!form.source.trim()) return 'Name the source, e.g. the publication.';
  if (form.source.trim().length > 100) return 'The source may be at most 100 characters.';
  if (form.publishedAt && new Date(form.publishedAt).getTime() > Date.now() + 86_400_000) return 'The publication time may be at most one day in the future.';
  if (form.summary.length > 2000) return 'The summary may be at most 2,000 characters.';
  if (form.body.length > 100_000) return 'The text may be at most 100,000 characters.';
  return tagsProblem(parseTags(form.tags), 'tags');
}

/** A duplicate address is CONFLICT: say which address, and that it is already in the list. */
function addError(error: CombinedError | undefined, url: string): CombinedError | string | undefined {
  if (error?.graphQLErrors.some((e) => e.extensions?.code === 'CONFLICT')) {
    return `You already saved an article with this address (${url}). Each address is kept once; find it in the list below.`;
  }
  return error;
}

export function AddArticleForm({ onClose }: { onClose: () => void }) {
  const [form, setForm] = useState(EMPTY);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const [state, create] = useMutation(CreateArticle);
  const set = (field: keyof typeof EMPTY) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [field]: e.target.value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setAdded(null);
    const problem = problemWith(form);
    setInvalid(problem);
    if (problem) return;
    const tags = parseTags(form.tags);
    const input: CreateArticleInput = {
      url: form.url.trim(),
      title: form.title.trim(),
      source: form.source.trim(),
      ...(form.summary.trim() ? { summary: form.summary.trim() } : {}),
      ...(form.body.trim() ? { body: form.body } : {}),
      ...(tags.length > 0 ? { tags } : {}),
      ...(form.publishedAt ? { publishedAt: localDateTimeToIso(form.publishedAt) } : {}),
    };
    const result = await create({ input }, NEWS_LISTS);
    if (result.data) {
      setAdded(result.data.createNewsArticle.title);
      setForm(EMPTY);
    }
  }

  return (
    <Panel id="add-article" title="Add an article">
      <form className="stack" onSubmit={submit} noValidate aria-label="Add an article">
        <div className="form-row">
          <label className="grow">
            Address (URL)
            <input type="url" value={form.url} onChange={set('url')} maxLength={2048} placeholder="https://" required />
          </label>
          <label className="grow">
            Source
            <input value={form.source} onChange={set('source')} maxLength={100} placeholder="e.g. Financial Times" required />
          </label>
        </div>
        <label>
          Title
          <input value={form.title} onChange={set('title')} maxLength={500} required />
        </label>
        <div className="form-row">
          <label>
            Published <span className="hint">(default: now)</span>
            <input type="datetime-local" value={form.publishedAt} onChange={set('publishedAt')} />
          </label>
          <label className="grow">
            Tags <span className="hint">(comma-separated)</span>
            <input value={form.tags} onChange={set('tags')} placeholder="e.g. macro, rates" />
          </label>
        </div>
        <label>
          Summary <span className="hint">(optional, at most 2,000 characters)</span>
          <textarea value={form.summary} onChange={set('summary')} maxLength={2000} rows={2} />
        </label>
        <label>
          Text <span className="hint">(optional: the service never fetches the page)</span>
          <textarea value={form.body} onChange={set('body')} maxLength={100_000} rows={3} />
        </label>
        {invalid && (
          <div className="notice notice-error" role="alert">
            {invalid}
          </div>
        )}
        <ErrorNotice error={addError(state.error, state.operation?.variables.input.url ?? '')} title="Could not add the article" />
        {added && <SuccessNotice>Added “{added}”.</SuccessNotice>}
        <div className="toolbar">
          <button type="submit" disabled={state.fetching}>
            {state.fetching ? 'Adding…' : 'Add article'}
          </button>
          <button type="button" className="button-secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
    </Panel>
  );
}
