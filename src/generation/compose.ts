/**
 * The writer's pure parts: the offline (extractive) summary, the prompt for the LLM writer, and
 * the bookkeeping of `[n]` citations against a numbered reference list.
 */
import { FINDING_LIMITS, utcDate } from './analysts.ts';
import { excerpt, markdownSafe, rankSentences } from './extractive.ts';
import type { Analysis, CollectedWorkspace, Finding, ReferenceKind, SourceReference, SummaryLength, WrittenSummary } from './types.ts';

export interface ComposeOptions {
  length: SummaryLength;
  now: Date;
}

export const SUMMARY_TITLE = '# Workspace summary';
export const HIGHLIGHTS_HEADING = '## Highlights';
export const REFERENCES_HEADING = '## References';

const KIND_LABELS: Record<ReferenceKind, string> = {
  sticky: 'Sticky',
  link: 'Link',
  transcript: 'Meeting',
  task: 'Task',
  news: 'News',
};

// ---------------------------------------------------------------------------------------------
// Reference numbering
// ---------------------------------------------------------------------------------------------

/** Two references name the same record when kind and id match (titles may differ in length). */
export function referenceKey(reference: SourceReference): string {
  return `${reference.kind}:${reference.id}`;
}

/** Numbers records in order of first use, each distinct record once; `[n]` is `list[n - 1]`. */
export class ReferenceNumbering {
  readonly list: SourceReference[] = [];
  private readonly numbers = new Map<string, number>();

  /** `initial` keeps its numbering as given, duplicates included (their first number is used). */
  constructor(initial: readonly SourceReference[] = []) {
    for (const reference of initial) {
      this.list.push(reference);
      const key = referenceKey(reference);
      if (!this.numbers.has(key)) this.numbers.set(key, this.list.length);
    }
  }

  number(reference: SourceReference): number {
    const key = referenceKey(reference);
    const known = this.numbers.get(key);
    if (known !== undefined) return known;
    this.list.push(reference);
    this.numbers.set(key, this.list.length);
    return this.list.length;
  }

  /** " [1] [2]" for a finding's references (each number once), or "" when it has none. */
  markers(references: readonly SourceReference[]): string {
    const numbers = [...new Set(references.map((reference) => this.number(reference)))];
    return numbers.map((n) => ` [${n}]`).join('');
  }
}

/** "3. Sticky: Budget review notes" */
export function formatReferenceLine(n: number, reference: SourceReference): string {
  return `${n}. ${KIND_LABELS[reference.kind]}: ${markdownSafe(reference.title) || reference.id}`;
}

/** The `## References` section for a numbered list, or "" for an empty one. */
export function renderReferences(references: readonly SourceReference[]): string {
  if (references.length === 0) return '';
  return [REFERENCES_HEADING, '', ...references.map((reference, i) => formatReferenceLine(i + 1, reference))].join('\n');
}

/** Every reference of every finding, numbered in the order analyses and findings are given. */
export function numberReferences(analyses: readonly Analysis[]): SourceReference[] {
  const numbering = new ReferenceNumbering();
  for (const analysis of analyses) for (const finding of analysis.findings) finding.references.forEach((r) => numbering.number(r));
  return numbering.list;
}

/** `[n]` markers in markdown (not `[n](url)` link texts), in order of appearance. */
export function citedNumbers(markdown: string): number[] {
  return [...markdown.matchAll(/\[(\d{1,4})\](?!\()/g)].map((match) => Number(match[1]));
}

/** The references whose `[n]` marker appears in the markdown, in number order. */
export function referencesUsed(markdown: string, numbered: readonly SourceReference[]): SourceReference[] {
  const used = new Set(citedNumbers(markdown).filter((n) => n >= 1 && n <= numbered.length));
  return [...used].sort((a, b) => a - b).map((n) => numbered[n - 1]);
}

/**
 * Renumbers the `[n]` markers of a written summary 1, 2, 3 ... in order of first appearance and
 * returns the matching reference list; markers with no reference behind them are removed.
 * Lets the LLM cite the prompt's numbers while the final list has no gaps.
 */
export function renumberCitations(markdown: string, numbered: readonly SourceReference[]): { markdown: string; references: SourceReference[] } {
  const numbering = new ReferenceNumbering();
  const rewritten = markdown.replace(/ ?\[(\d{1,4})\](?!\()/g, (marker: string, digits: string) => {
    const reference = numbered[Number(digits) - 1];
    return reference ? `${marker.startsWith(' ') ? ' ' : ''}[${numbering.number(reference)}]` : '';
  });
  return { markdown: rewritten, references: numbering.list };
}

// ---------------------------------------------------------------------------------------------
// The offline summary
// ---------------------------------------------------------------------------------------------

/**
 * The extractive summary: highlights (TextRank over all findings, weights as boost), one section
 * per analysis with its findings as bullets, and the numbered references they cite.
 */
export function composeExtractiveSummary(analyses: readonly Analysis[], collected: CollectedWorkspace, options: ComposeOptions): WrittenSummary {
  const findings = analyses.flatMap((analysis) => analysis.findings);
  const lines = [SUMMARY_TITLE, '', windowLine(collected, options.now)];
  if (findings.length === 0) {
    lines.push('', `Nothing was found in your workspace between ${utcDate(collected.since)} and ${utcDate(collected.until)}.`);
    return { markdown: `${lines.join('\n')}\n`, references: [], provider: 'offline' };
  }

  const numbering = new ReferenceNumbering();
  const bullet = (finding: Finding) => `- ${markdownSafe(finding.text)}${numbering.markers(finding.references)}`;
  const highlights = rankSentences(
    findings.map((finding) => ({ text: finding.text, boost: finding.weight })),
    { max: FINDING_LIMITS[options.length] },
  );
  lines.push('', HIGHLIGHTS_HEADING, '', ...highlights.map((h) => bullet(findings[h.index])));
  for (const analysis of analyses) {
    const bullets = analysis.findings.length > 0 ? analysis.findings.map(bullet) : ['_Nothing in the window._'];
    lines.push('', `## ${markdownSafe(analysis.heading)}`, '', ...bullets);
  }
  if (numbering.list.length > 0) lines.push('', renderReferences(numbering.list));
  return { markdown: `${lines.join('\n')}\n`, references: numbering.list, provider: 'offline' };
}

/** "Window: 2026-11-10 to 2026-11-17 (UTC); generated 2026-11-17 09:30 UTC." */
function windowLine(collected: CollectedWorkspace, now: Date): string {
  const generated = now.toISOString().slice(0, 16).replace('T', ' ');
  return `Window: ${utcDate(collected.since)} to ${utcDate(collected.until)} (UTC); generated ${generated} UTC.`;
}

// ---------------------------------------------------------------------------------------------
// The LLM writer's prompt
// ---------------------------------------------------------------------------------------------

export interface PromptMessage {
  role: 'system' | 'user';
  content: string;
}

export interface PromptOptions extends ComposeOptions {
  /** Upper bound on the characters of both messages together. */
  maxChars?: number;
}

export const MAX_PROMPT_CHARS = 12_000;
/** A single finding longer than this is cut: one runaway note must not crowd out the rest. */
const MAX_FINDING_CHARS = 400;

const TARGET_WORDS: Record<SummaryLength, number> = { short: 120, medium: 250, long: 450 };

/**
 * System and user messages for the LLM writer. The references keep the numbers of
 * `numberReferences(analyses)`, so `referencesUsed`/`renumberCitations` with that list map the
 * answer back. Lowest-weight findings are dropped first until the prompt fits `maxChars`.
 */
export function buildWriterPrompt(analyses: readonly Analysis[], collected: CollectedWorkspace, options: PromptOptions): PromptMessage[] {
  const maxChars = options.maxChars ?? MAX_PROMPT_CHARS;
  const system = systemPrompt(options.length);
  const numbered = numberReferences(analyses);
  const dropOrder = findingSlots(analyses).sort((a, b) => a.weight - b.weight || b.analysis - a.analysis || b.finding - a.finding);
  const dropped = new Set<string>();
  let user = userPrompt(analyses, collected, numbered, dropped);
  for (const slot of dropOrder) {
    if (system.length + user.length <= maxChars) break;
    dropped.add(slot.key);
    user = userPrompt(analyses, collected, numbered, dropped);
  }
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

function systemPrompt(length: SummaryLength): string {
  return [
    "You write a concise markdown summary of a user's workspace from the findings of four analysts (notes and links, meetings, tasks, news).",
    `Start with "${SUMMARY_TITLE}", then a short "${HIGHLIGHTS_HEADING}" list, then one "## " section per analyst that has findings.`,
    `Aim for about ${TARGET_WORDS[length]} words (${length}).`,
    'Use only the facts in the findings: do not invent names, dates, numbers or events.',
    'Cite sources with the [n] markers given, placed after the statement they support; use only those markers, never invent new ones, and do not write a references list (it is added for you).',
    'Do not use code blocks or HTML.',
  ].join('\n');
}

interface FindingSlot {
  key: string;
  analysis: number;
  finding: number;
  weight: number;
}

function findingSlots(analyses: readonly Analysis[]): FindingSlot[] {
  return analyses.flatMap((analysis, a) => analysis.findings.map((finding, f) => ({ key: `${a}:${f}`, analysis: a, finding: f, weight: finding.weight })));
}

function userPrompt(analyses: readonly Analysis[], collected: CollectedWorkspace, numbered: readonly SourceReference[], dropped: ReadonlySet<string>): string {
  const numberOf = new Map(numbered.map((reference, i) => [referenceKey(reference), i + 1]));
  const cited = new Set<number>();
  const sections: string[] = [];
  analyses.forEach((analysis, a) => {
    const kept = analysis.findings.filter((_, f) => !dropped.has(`${a}:${f}`));
    const bullets = kept.map((finding) => {
      const numbers = [...new Set(finding.references.map((r) => numberOf.get(referenceKey(r)) ?? 0))].filter((n) => n > 0);
      numbers.forEach((n) => cited.add(n));
      return `- ${excerpt(finding.text, MAX_FINDING_CHARS)}${numbers.map((n) => ` [${n}]`).join('')}`;
    });
    if (analysis.findings.length === 0) bullets.push('- Nothing in the window.');
    sections.push(`## ${markdownSafe(analysis.heading)}`, ...bullets, '');
  });
  const references = [...cited].sort((x, y) => x - y).map((n) => `[${n}] ${KIND_LABELS[numbered[n - 1].kind]}: ${excerpt(numbered[n - 1].title, 100)}`);
  return [
    `Summarise this workspace activity from ${utcDate(collected.since)} to ${utcDate(collected.until)} (UTC).`,
    '',
    'References (cite as [n]):',
    ...(references.length > 0 ? references : ['(none)']),
    '',
    'Findings, most important first:',
    '',
    ...sections,
    ...(dropped.size > 0 ? [`(${dropped.size} minor findings left out)`] : []),
  ]
    .join('\n')
    .trimEnd();
}
