import { useMemo, type ComponentPropsWithoutRef, type MouseEvent, type ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import { Badge } from '../../components/badge.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import type { Reference, ReferenceKind } from './api.ts';
import { agentLabel } from './progress.ts';

const KIND_LABELS: Record<ReferenceKind, string> = {
  sticky: 'Sticky',
  link: 'Link',
  transcript: 'Meeting',
  task: 'Task',
  news: 'News',
};

const REF_ID = 'summary-ref-';
const CITATION = /^#summary-ref-(\d+)$/;

/**
 * The summary's own "## References" list is replaced by the structured one below it, and each
 * `[n]` marker becomes a link to the n-th reference (markers naming no reference stay text).
 */
export function prepareMarkdown(markdown: string, references: readonly Reference[]): string {
  let text = markdown;
  if (references.length > 0) {
    const lines = text.split('\n');
    const start = lines.findIndex((line) => /^##\s+References\s*$/i.test(line));
    if (start >= 0) {
      const next = lines.findIndex((line, i) => i > start && /^#{1,2}\s/.test(line));
      lines.splice(start, (next < 0 ? lines.length : next) - start);
      text = lines.join('\n');
    }
  }
  return text.replace(/\[(\d{1,4})\](?![(\[:])/g, (marker: string, digits: string) => {
    const n = Number(digits);
    return n >= 1 && n <= references.length ? `[\\[${n}\\]](#${REF_ID}${n})` : marker;
  });
}

function focusReference(event: MouseEvent<HTMLAnchorElement>, n: number) {
  // The URL's hash is the page's route, so an in-page jump is done by hand.
  event.preventDefault();
  const target = document.getElementById(`${REF_ID}${n}`);
  target?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  target?.focus({ preventScroll: true });
}

function components(references: readonly Reference[]): Components {
  // The page has its h1 and the panel its h2: the summary's headings sit below them.
  const heading = (Tag: 'h3' | 'h4' | 'h5' | 'h6') =>
    function Heading({ node: _node, ...props }: ComponentPropsWithoutRef<'h1'> & { node?: unknown }) {
      return <Tag {...props} />;
    };
  return {
    h1: heading('h3'),
    h2: heading('h4'),
    h3: heading('h5'),
    h4: heading('h6'),
    h5: heading('h6'),
    h6: heading('h6'),
    a({ node: _node, href, children, ...props }) {
      const citation = href ? CITATION.exec(href) : null;
      const n = citation ? Number(citation[1]) : 0;
      const reference = references[n - 1];
      if (citation && !reference) return <>{children}</>;
      if (reference) {
        return (
          <a
            href={href}
            className="gen-citation"
            onClick={(event) => focusReference(event, n)}
            aria-label={`Reference ${n}: ${KIND_LABELS[reference.kind]}, ${reference.title}`}
            title={`${KIND_LABELS[reference.kind]}: ${reference.title}`}
          >
            {children}
          </a>
        );
      }
      return (
        <a href={href} target="_blank" rel="noopener noreferrer" {...props}>
          {children}
        </a>
      );
    },
  };
}

function providerNote(provider: string | null): ReactNode {
  if (provider === 'openai')
    return (
      <>
        Written by the configured language model (<code>openai</code>).
      </>
    );
  if (provider === 'offline')
    return (
      <>
        Written offline by the extractive summariser (<code>offline</code>).
      </>
    );
  return null;
}

/** What a failed agent means for the summary (docs/subscriptions.md, "Failures and degradation"). */
function consequence(agent: string, provider: string | null): string {
  if (agent === 'writer') return provider === 'offline' ? 'the language model failed, so this is the extractive summary' : 'the writer failed';
  if (agent === 'editor') return 'the summary was not checked for missing findings';
  return 'its section is left out';
}

export function SummaryView(props: { markdown: string; references: Reference[]; provider: string | null; degraded: boolean; failedAgents: string[] }) {
  const { markdown, references, provider, degraded, failedAgents } = props;
  const renderers = useMemo(() => components(references), [references]);
  const text = useMemo(() => prepareMarkdown(markdown, references), [markdown, references]);
  return (
    <div className="gen-summary">
      <div className="gen-summary-meta">
        <p className="hint">{providerNote(provider)}</p>
        <CopyButton text={markdown} label="Copy markdown" />
      </div>
      {degraded && (
        <div className="notice notice-warning">
          <strong>Degraded:</strong>{' '}
          {failedAgents.length > 0
            ? failedAgents.map((agent) => `${agentLabel(agent)} failed (${consequence(agent, provider)})`).join('; ')
            : 'some agents failed'}
          .
        </div>
      )}
      <div className="markdown gen-summary-text">
        <Markdown skipHtml components={renderers}>
          {text}
        </Markdown>
      </div>
      {references.length > 0 && (
        <section className="gen-summary-references" aria-labelledby="summary-references-title">
          <h3 id="summary-references-title">References</h3>
          <ol>
            {references.map((reference, i) => (
              <li key={`${reference.kind}:${reference.id}:${i}`} id={`${REF_ID}${i + 1}`} tabIndex={-1}>
                <Badge tone="neutral">{KIND_LABELS[reference.kind] ?? reference.kind}</Badge> <span>{reference.title || reference.id}</span>
              </li>
            ))}
          </ol>
        </section>
      )}
    </div>
  );
}
