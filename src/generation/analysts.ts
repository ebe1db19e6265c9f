/**
 * The four analysts: each reads its sources from what the collector gathered and returns
 * findings (one markdown-safe line each, with the records that support it), key terms and counts.
 * Pure apart from progress reports; deterministic for the same input and `now`.
 */
import { compareText, excerpt, keyTerms, markdownSafe, rankSentences, rankTerms, splitSentences, tokenize, type RankItem } from './extractive.ts';
import type {
  Analysis,
  AnalystName,
  CollectedLink,
  CollectedNews,
  CollectedSticky,
  CollectedTask,
  CollectedTranscript,
  CollectedWorkspace,
  Finding,
  ReportProgress,
  SourceReference,
  SummaryLength,
} from './types.ts';

/** Findings per analysis (and highlights in the summary) by summary length. */
export const FINDING_LIMITS: Record<SummaryLength, number> = { short: 3, medium: 5, long: 8 };

export const KEY_TERMS_PER_ANALYSIS = 8;

/** Transcript sentences given to TextRank (it is quadratic); decision-like and longer ones first. */
export const MAX_RANKED_SENTENCES = 300;

/** Notes given to TextRank: the most recently updated ones. */
export const MAX_RANKED_NOTES = 300;

/** Records named in one finding ("3 tasks are overdue: A, B, C ..."). */
const NAMED_PER_FINDING = 5;

export interface AnalyzeOptions {
  now: Date;
  length: SummaryLength;
  report?: ReportProgress;
}

const HEADINGS: Record<AnalystName, string> = {
  notes: 'Notes and links',
  meetings: 'Meetings',
  tasks: 'Tasks',
  news: 'News',
};

/** Runs one analyst. Missing or empty sources give an analysis without findings, not an error. */
export async function analyze(name: AnalystName, collected: CollectedWorkspace, options: AnalyzeOptions): Promise<Analysis> {
  const report: ReportProgress = options.report ?? (async () => {});
  const context: AnalystContext = { collected, now: options.now, limit: FINDING_LIMITS[options.length], report };
  switch (name) {
    case 'notes':
      return analyzeNotes(context);
    case 'meetings':
      return analyzeMeetings(context);
    case 'tasks':
      return analyzeTasks(context);
    case 'news':
      return analyzeNews(context);
    default:
      throw new Error(`Unknown analyst: ${String(name satisfies never)}`);
  }
}

interface AnalystContext {
  collected: CollectedWorkspace;
  now: Date;
  limit: number;
  report: ReportProgress;
}

interface Draft {
  /** Specific findings, in any order (sorted by weight, stable). */
  details: Finding[];
  /** The counts line: always kept when there is anything, so the summary says how much there was. */
  overview?: Finding;
}

/** The best `limit - 1` details plus the overview, most important first. */
function selectFindings(draft: Draft, limit: number): Finding[] {
  const byWeight = (a: Finding, b: Finding) => b.weight - a.weight;
  const room = draft.overview ? limit - 1 : limit;
  const chosen = [...draft.details].sort(byWeight).slice(0, Math.max(0, room));
  if (draft.overview) chosen.push(draft.overview);
  return chosen.sort(byWeight).map((finding) => ({ ...finding, weight: clampWeight(finding.weight) }));
}

function clampWeight(weight: number): number {
  return Math.round(Math.min(1, Math.max(0, weight)) * 1000) / 1000;
}

/** Weights by rank: 0.95, 0.85, ... down to a floor, so ranked details sort above the overview. */
function rankWeight(rank: number, top = 0.95, floor = 0.55): number {
  return Math.max(floor, top - 0.1 * rank);
}

// ---------------------------------------------------------------------------------------------
// Notes and links
// ---------------------------------------------------------------------------------------------

async function analyzeNotes({ collected, limit, report }: AnalystContext): Promise<Analysis> {
  const stickies = [...(collected.stickies ?? [])].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || compareText(a.id, b.id));
  const links = [...(collected.links ?? [])].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || compareText(a.id, b.id));
  const starred = links.filter((link) => link.starred);
  await report(10, `Reading ${plural(stickies.length, 'note')} and ${plural(links.length, 'link')}`, { notes: stickies.length, links: links.length });

  const tags = topCounts(
    [...stickies.flatMap((s) => s.tags), ...links.flatMap((l) => l.tags)].map((t) => t.toLowerCase()),
    5,
  );
  const ranked = rankSentences(noteItems(stickies, collected), { max: limit });
  await report(60, `Picked ${plural(ranked.length, 'representative note')}`, { notes: stickies.length, links: links.length, representative: ranked.length });

  const details: Finding[] = ranked.map((sentence, rank) => ({
    text: `Note: ${excerpt(sentence.text, 220)}`,
    weight: rankWeight(rank),
    references: sentence.reference ? [sentence.reference] : [],
  }));
  if (starred.length > 0) details.push(namedFinding(starred, 'starred link', 0.7, linkName, linkReference));
  const unstarred = links.filter((link) => !link.starred);
  if (unstarred.length > 0) details.push(namedFinding(unstarred, 'link saved', 0.4, linkName, linkReference, 'links saved'));

  const total = stickies.length + links.length;
  const overview: Finding | undefined =
    total === 0
      ? undefined
      : {
          text: `${plural(stickies.length, 'note')} and ${plural(links.length, 'link')} in the window${tags.length > 0 ? `; most used tags: ${tags.map((t) => t.value).join(', ')}` : ''}.`,
          weight: 0.5,
          references: [],
        };
  const findings = selectFindings({ details, overview }, limit);
  await report(90, `Notes and links analysed: ${plural(findings.length, 'finding')}`, { findings: findings.length });
  return {
    agent: 'notes',
    heading: HEADINGS.notes,
    findings,
    keyTerms: keyTerms([...stickies.map((s) => s.content), ...links.map((l) => l.title ?? '')], KEY_TERMS_PER_ANALYSIS),
    metrics: {
      notes: stickies.length,
      links: links.length,
      starredLinks: starred.length,
      topTags: tags.map((t) => t.value),
    },
  };
}

/** Each non-blank note is one item to rank (the most recent first); recency is a small boost. */
function noteItems(stickies: readonly CollectedSticky[], window: CollectedWorkspace): RankItem[] {
  return stickies
    .filter((sticky) => markdownSafe(sticky.content) !== '')
    .slice(0, MAX_RANKED_NOTES)
    .map((sticky) => ({ text: markdownSafe(sticky.content), reference: stickyReference(sticky), boost: 0.2 * recency(sticky.updatedAt, window) }));
}

function stickyReference(sticky: CollectedSticky): SourceReference {
  return { kind: 'sticky', id: sticky.id, title: excerpt(sticky.content, 60) || 'Untitled note' };
}

function linkReference(link: CollectedLink): SourceReference {
  return { kind: 'link', id: link.id, title: linkName(link) };
}

function linkName(link: CollectedLink): string {
  return excerpt(link.title?.trim() ? link.title : link.url, 100);
}

// ---------------------------------------------------------------------------------------------
// Meetings
// ---------------------------------------------------------------------------------------------

/** Words that mark a decision, a commitment or an action item. */
const DECISION_CUE =
  /\b(?:will|won't|going to|decided|decide|decision|agreed|agree|action items?|follow[- ]?ups?|next steps?|deadlines?|due|owner|assigned|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|eod|eow|end of (?:the )?(?:day|week|month|quarter)|next week))\b/i;

const DECISION_BOOST = 1;

export function looksLikeDecision(sentence: string): boolean {
  return DECISION_CUE.test(sentence);
}

interface MeetingSentence {
  text: string;
  speaker: string;
  transcript: CollectedTranscript;
  decision: boolean;
}

async function analyzeMeetings({ collected, limit, report }: AnalystContext): Promise<Analysis> {
  const transcripts = [...(collected.transcripts ?? [])].sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime() || compareText(a.id, b.id));
  const participants = meetingParticipants(transcripts);
  const sentences = transcripts.flatMap(meetingSentences);
  const decisions = sentences.filter((s) => s.decision).length;
  await report(10, `Reading ${plural(transcripts.length, 'meeting')}`, { meetings: transcripts.length, sentences: sentences.length });

  const candidates = capSentences(sentences, MAX_RANKED_SENTENCES);
  // Decisions and action items are what a meeting summary is for: a boost of 1 puts them above
  // every other sentence (TextRank scores are normalised to 0..1) and centrality orders each group.
  const ranked = rankSentences(
    candidates.map((s) => ({ text: s.text, reference: transcriptReference(s.transcript), boost: s.decision ? DECISION_BOOST : 0 })),
    { max: limit },
  );
  await report(60, `Ranked ${plural(candidates.length, 'sentence')} from ${plural(transcripts.length, 'meeting')}`, {
    meetings: transcripts.length,
    sentences: sentences.length,
    decisions,
  });

  const details: Finding[] = ranked.map((r, rank) => {
    const s = candidates[r.index];
    const who = s.speaker ? `, ${markdownSafe(s.speaker)}:` : ':';
    return {
      text: `In "${meetingTitle(s.transcript)}" (${shortDate(s.transcript.occurredAt)})${who} ${excerpt(s.text, 240)}`,
      weight: rankWeight(rank),
      references: [transcriptReference(s.transcript)],
    };
  });
  const overview: Finding | undefined =
    transcripts.length === 0
      ? undefined
      : {
          text: `${plural(transcripts.length, 'meeting')}: ${listNames(transcripts, (t) => `"${meetingTitle(t)}" (${shortDate(t.occurredAt)})`)}${
            participants.length > 0 ? `; participants: ${participants.slice(0, 8).map(markdownSafe).join(', ')}` : ''
          }.`,
          weight: 0.5,
          references: transcripts.slice(0, NAMED_PER_FINDING).map(transcriptReference),
        };
  const findings = selectFindings({ details, overview }, limit);
  await report(90, `Meetings analysed: ${plural(findings.length, 'finding')}`, { findings: findings.length });
  return {
    agent: 'meetings',
    heading: HEADINGS.meetings,
    findings,
    keyTerms: keyTerms(
      transcripts.map((t) => t.sentences.map((s) => s.text).join('\n')),
      KEY_TERMS_PER_ANALYSIS,
    ),
    metrics: { meetings: transcripts.length, sentences: sentences.length, decisions, participants: participants.slice(0, MAX_LISTED_PARTICIPANTS) },
  };
}

/** Everyone listed or speaking, most active speakers first, then alphabetical. */
function meetingParticipants(transcripts: readonly CollectedTranscript[]): string[] {
  const names = transcripts.flatMap((t) => [...t.participants, ...t.sentences.map((s) => s.speaker)]);
  return topCounts(names.map((n) => n.trim()).filter(Boolean), Number.MAX_SAFE_INTEGER).map((c) => c.value);
}

function meetingSentences(transcript: CollectedTranscript): MeetingSentence[] {
  return transcript.sentences.flatMap((utterance) =>
    splitSentences(utterance.text).map((text) => ({ text, speaker: utterance.speaker.trim(), transcript, decision: looksLikeDecision(text) })),
  );
}

/** At most `max` sentences, preferring decisions and longer ones, kept in their original order. */
function capSentences(sentences: MeetingSentence[], max: number): MeetingSentence[] {
  if (sentences.length <= max) return sentences;
  const priority = (s: MeetingSentence) => (s.decision ? 2 : 0) + Math.min(tokenize(s.text).length, 12) / 12;
  const keep = new Set(
    sentences
      .map((s, i) => ({ i, p: priority(s) }))
      .sort((a, b) => b.p - a.p || a.i - b.i)
      .slice(0, max)
      .map((x) => x.i),
  );
  return sentences.filter((_, i) => keep.has(i));
}

/** Participants named in the metrics (the event data stays small). */
const MAX_LISTED_PARTICIPANTS = 20;

function meetingTitle(transcript: CollectedTranscript): string {
  return excerpt(transcript.title, 100).replace(/"/g, "'") || 'Untitled meeting';
}

function transcriptReference(transcript: CollectedTranscript): SourceReference {
  return { kind: 'transcript', id: transcript.id, title: meetingTitle(transcript) };
}

// ---------------------------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------------------------

export const DUE_SOON_DAYS = 7;

export interface TaskBuckets {
  /** Open with a due date before today (UTC). */
  overdue: CollectedTask[];
  /** Open and due from today through today + 7 days (UTC), inclusive. */
  dueSoon: CollectedTask[];
  /** Open (not blocked, done or cancelled) and urgent or high priority. */
  highPriority: CollectedTask[];
  blocked: CollectedTask[];
  /** Done, most recently updated first. */
  completed: CollectedTask[];
}

const CLOSED = new Set<CollectedTask['status']>(['done', 'cancelled']);
const PRIORITY_RANK: Record<CollectedTask['priority'], number> = { urgent: 0, high: 1, medium: 2, low: 3 };

/** Sorts tasks into the buckets the findings report; dates compare as UTC `YYYY-MM-DD` strings. */
export function bucketTasks(tasks: readonly CollectedTask[], now: Date): TaskBuckets {
  const today = utcDate(now);
  const horizon = utcDate(new Date(Date.parse(`${today}T00:00:00Z`) + DUE_SOON_DAYS * 86_400_000));
  const open = tasks.filter((t) => !CLOSED.has(t.status));
  const byDue = (a: CollectedTask, b: CollectedTask) =>
    compareText(a.dueDate ?? '', b.dueDate ?? '') || compareText(a.title, b.title) || compareText(a.id, b.id);
  return {
    overdue: open.filter((t) => t.dueDate !== null && t.dueDate < today).sort(byDue),
    dueSoon: open.filter((t) => t.dueDate !== null && t.dueDate >= today && t.dueDate <= horizon).sort(byDue),
    highPriority: open
      .filter((t) => t.status !== 'blocked' && PRIORITY_RANK[t.priority] <= 1)
      .sort((a, b) => PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || byDue(a, b)),
    blocked: tasks.filter((t) => t.status === 'blocked').sort(byDue),
    completed: tasks
      .filter((t) => t.status === 'done')
      .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || compareText(a.title, b.title) || compareText(a.id, b.id)),
  };
}

async function analyzeTasks({ collected, now, limit, report }: AnalystContext): Promise<Analysis> {
  const tasks = collected.tasks ?? [];
  const byStatus = countStatuses(tasks);
  await report(10, `Reading ${plural(tasks.length, 'task')}`, { tasks: tasks.length });
  const buckets = bucketTasks(tasks, now);
  await report(60, `Sorted ${plural(tasks.length, 'task')}: ${buckets.overdue.length} overdue, ${buckets.dueSoon.length} due soon`, {
    tasks: tasks.length,
    overdue: buckets.overdue.length,
    dueSoon: buckets.dueSoon.length,
  });

  const withDue = (t: CollectedTask) => `"${taskTitle(t)}" (due ${t.dueDate ?? '?'})`;
  const withPriority = (t: CollectedTask) => `"${taskTitle(t)}" (${t.priority})`;
  const quoted = (t: CollectedTask) => `"${taskTitle(t)}"`;
  const details: Finding[] = [];
  if (buckets.overdue.length > 0) details.push(taskFinding(buckets.overdue, ['task is overdue', 'tasks are overdue'], 1, withDue));
  if (buckets.blocked.length > 0) details.push(taskFinding(buckets.blocked, ['task is blocked', 'tasks are blocked'], 0.9, quoted));
  if (buckets.highPriority.length > 0)
    details.push(taskFinding(buckets.highPriority, ['urgent or high-priority task is open', 'urgent or high-priority tasks are open'], 0.8, withPriority));
  if (buckets.dueSoon.length > 0)
    details.push(
      taskFinding(buckets.dueSoon, [`task is due in the next ${DUE_SOON_DAYS} days`, `tasks are due in the next ${DUE_SOON_DAYS} days`], 0.7, withDue),
    );
  if (buckets.completed.length > 0) details.push(taskFinding(buckets.completed, ['task was completed', 'tasks were completed'], 0.6, quoted));

  const overview: Finding | undefined =
    tasks.length === 0 ? undefined : { text: `${plural(tasks.length, 'task')} in the window: ${statusSummary(byStatus)}.`, weight: 0.5, references: [] };
  const findings = selectFindings({ details, overview }, limit);
  await report(90, `Tasks analysed: ${plural(findings.length, 'finding')}`, { findings: findings.length });
  return {
    agent: 'tasks',
    heading: HEADINGS.tasks,
    findings,
    keyTerms: keyTerms(
      tasks.map((t) => [t.title, t.description ?? '', ...t.comments.map((c) => c.body)].join('\n')),
      KEY_TERMS_PER_ANALYSIS,
    ),
    metrics: {
      tasks: tasks.length,
      ...byStatus,
      overdue: buckets.overdue.length,
      dueSoon: buckets.dueSoon.length,
      highPriorityOpen: buckets.highPriority.length,
    },
  };
}

const STATUS_LABELS: [CollectedTask['status'], string][] = [
  ['todo', 'to do'],
  ['in_progress', 'in progress'],
  ['blocked', 'blocked'],
  ['done', 'done'],
  ['cancelled', 'cancelled'],
];

function countStatuses(tasks: readonly CollectedTask[]): Record<CollectedTask['status'], number> {
  const counts: Record<CollectedTask['status'], number> = { todo: 0, in_progress: 0, blocked: 0, done: 0, cancelled: 0 };
  for (const task of tasks) counts[task.status] += 1;
  return counts;
}

function statusSummary(counts: Record<CollectedTask['status'], number>): string {
  return STATUS_LABELS.filter(([status]) => counts[status] > 0)
    .map(([status, label]) => `${counts[status]} ${label}`)
    .join(', ');
}

/** "3 tasks are overdue: "A" (due ...), "B" ... and 1 more." */
function taskFinding(tasks: CollectedTask[], phrases: [string, string], weight: number, name: (t: CollectedTask) => string): Finding {
  const shown = tasks.slice(0, NAMED_PER_FINDING);
  return {
    text: `${tasks.length} ${tasks.length === 1 ? phrases[0] : phrases[1]}: ${listNames(tasks, name)}.`,
    weight,
    references: shown.map((t) => ({ kind: 'task', id: t.id, title: taskTitle(t) })),
  };
}

function taskTitle(task: CollectedTask): string {
  return excerpt(task.title, 100).replace(/"/g, "'") || 'Untitled task';
}

// ---------------------------------------------------------------------------------------------
// News
// ---------------------------------------------------------------------------------------------

/** Interest terms taken from the user's other sources to judge which headlines matter to them. */
const INTEREST_TERMS = 30;

async function analyzeNews({ collected, limit, report }: AnalystContext): Promise<Analysis> {
  const articles = collected.news ?? [];
  const bySource = topCounts(
    articles.map((a) => a.source.trim() || 'Unknown source'),
    Number.MAX_SAFE_INTEGER,
  );
  await report(10, `Reading ${plural(articles.length, 'article')}`, { articles: articles.length, sources: bySource.length });

  const interests = new Map(rankTerms(interestTexts(collected), INTEREST_TERMS).map((t) => [t.stem, t.word]));
  const scored = articles
    .map((article) => scoreArticle(article, interests, collected))
    .sort((a, b) => b.score - a.score || b.article.publishedAt.getTime() - a.article.publishedAt.getTime() || compareText(a.article.id, b.article.id));
  await report(60, `Ranked ${plural(articles.length, 'headline')} against ${plural(interests.size, 'interest term')}`, {
    articles: articles.length,
    related: scored.filter((s) => s.matches.length > 0).length,
  });

  const details: Finding[] = scored.slice(0, limit).map(({ article, score }) => ({
    // The words that ranked it (matches) only order the list: shown, they read as noise. Tags the user set on the article say something.
    text: `${markdownSafe(article.source) || 'Unknown source'}, ${shortDate(article.publishedAt)}: ${excerpt(article.title, 160) || excerpt(article.url, 160)}${userTags(article.tags)}`,
    weight: 0.55 + 0.45 * score,
    references: [newsReference(article)],
  }));
  const overview: Finding | undefined =
    articles.length === 0
      ? undefined
      : {
          text: `${plural(articles.length, 'article')} from ${plural(bySource.length, 'source')}: ${bySource
            .slice(0, NAMED_PER_FINDING)
            .map((s) => `${markdownSafe(s.value)} (${s.count})`)
            .join(', ')}${bySource.length > NAMED_PER_FINDING ? ` and ${bySource.length - NAMED_PER_FINDING} more` : ''}.`,
          weight: 0.5,
          references: [],
        };
  const findings = selectFindings({ details, overview }, limit);
  await report(90, `News analysed: ${plural(findings.length, 'finding')}`, { findings: findings.length });
  return {
    agent: 'news',
    heading: HEADINGS.news,
    findings,
    keyTerms: keyTerms(
      articles.map((a) => `${a.title}\n${a.summary ?? ''}`),
      KEY_TERMS_PER_ANALYSIS,
    ),
    metrics: { articles: articles.length, sources: bySource.length, bySource: bySource.map((s) => `${s.value}: ${s.count}`) },
  };
}

/** What the user wrote and worked on, apart from the news itself. */
function interestTexts(collected: CollectedWorkspace): string[] {
  return [
    ...(collected.stickies ?? []).map((s) => [s.content, ...s.tags].join(' ')),
    ...(collected.links ?? []).map((l) => [l.title ?? '', ...l.tags].join(' ')),
    ...(collected.transcripts ?? []).map((t) => [t.title, ...t.sentences.map((s) => s.text)].join('\n')),
    ...(collected.tasks ?? []).map((t) => [t.title, t.description ?? '', ...t.labels].join(' ')),
  ];
}

interface ScoredArticle {
  article: CollectedNews;
  /** 0..1: 70% overlap with interest terms (saturating), 30% recency within the window. */
  score: number;
  matches: string[];
}

/** " (tags: rates, Fed)" for the tags the user set on an article (at most three), or nothing. */
function userTags(tags: readonly string[] | undefined): string {
  const set = [...new Set((tags ?? []).map((tag) => markdownSafe(tag.trim())).filter(Boolean))].slice(0, 3);
  return set.length > 0 ? ` (tags: ${set.join(', ')})` : '';
}

function scoreArticle(article: CollectedNews, interests: Map<string, string>, window: CollectedWorkspace): ScoredArticle {
  const stems = new Set(tokenize([article.title, article.summary ?? '', ...article.tags].join(' ')));
  const matches = [...interests].filter(([s]) => stems.has(s)).map(([, word]) => word);
  const relevance = matches.length / (matches.length + 2);
  return { article, score: 0.7 * relevance + 0.3 * recency(article.publishedAt, window), matches };
}

function newsReference(article: CollectedNews): SourceReference {
  return { kind: 'news', id: article.id, title: excerpt(article.title, 100) || excerpt(article.url, 100) };
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

import { plural } from '../util/plural.ts';

/** "Nov 18" in UTC, independent of the machine's locale and time zone. */
export function shortDate(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return `${months[date.getUTCMonth()]} ${date.getUTCDate()}`;
}

export function utcDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** 0 at the start of the window, 1 at its end (clamped); 1 for an empty window. */
function recency(date: Date, window: CollectedWorkspace): number {
  const span = window.until.getTime() - window.since.getTime();
  if (!(span > 0)) return 1;
  return Math.min(1, Math.max(0, (date.getTime() - window.since.getTime()) / span));
}

/** Values by how often they occur, then alphabetically. */
function topCounts(values: readonly string[], n: number): { value: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const value of values) if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || compareText(a.value, b.value))
    .slice(0, n);
}

/** The first few names, then "and N more". */
function listNames<T>(items: readonly T[], name: (item: T) => string): string {
  const shown = items.slice(0, NAMED_PER_FINDING).map(name).join(', ');
  return items.length > NAMED_PER_FINDING ? `${shown} and ${items.length - NAMED_PER_FINDING} more` : shown;
}

/** "2 starred links: "A", "B"." referencing each named record. */
function namedFinding<T>(
  items: readonly T[],
  noun: string,
  weight: number,
  name: (item: T) => string,
  reference: (item: T) => SourceReference,
  nouns = `${noun}s`,
): Finding {
  return {
    text: `${plural(items.length, noun, nouns)}: ${listNames(items, (item) => `"${name(item).replace(/"/g, "'")}"`)}.`,
    weight,
    references: items.slice(0, NAMED_PER_FINDING).map(reference),
  };
}
