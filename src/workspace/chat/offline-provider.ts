import type pg from 'pg';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { OrganizationService } from '../../organizations.ts';
import { ReturnsService } from '../../returns/returns-service.ts';
import { NewsService } from '../news/news-service.ts';
import { likePattern, parseChatQuery, SOURCES, type ChatQuery, type Keyword, type Source } from './query.ts';
import { WorkspaceSearch, type Hits, type WorkspaceFindings } from './offline-search.ts';
import { parseIntent, type Intent } from './intent.ts';
import { cite, oneLine, quoteTitle, shortId } from './citations.ts';
import { DASHBOARD, isWebUrl, mdLink } from './links.ts';
import { ReturnsAnswerer } from './answerers/returns.ts';
import { ComparisonsAnswerer } from './answerers/comparisons.ts';
import { FilesAnswerer } from './answerers/files.ts';
import { TasksAnswerer } from './answerers/tasks.ts';
import { NewsAnswerer } from './answerers/news.ts';
import { OFFLINE_LIMITS, type Answerer, type Asker } from './answerers/types.ts';
import type { ChatProvider, ChatRequest } from './types.ts';

export { quoteTitle } from './citations.ts';
export { OFFLINE_LIMITS } from './answerers/types.ts';

/** Hits listed per kind of record. */
export const OFFLINE_HITS_PER_SOURCE = 5;

export const OFFLINE_INTRO =
  "I'm the offline assistant: no language model is configured, so I can't write free-form answers. " +
  'I answer questions about your returns, comparisons, files, tasks and news from your data; for anything else I search your workspace and show you what I find.';

/** Questions the offline assistant answers from data, shown when it has nothing better to say. */
export const OFFLINE_EXAMPLES = [
  'What is the time-weighted return of DC-1001 this year?',
  'How many returns of DC-1001 match the custodian?',
  'Which files failed and why?',
  'Which tasks are overdue?',
  "This week's news digest",
];

export const UNSUPPORTED_ANSWERS: Record<'forecast' | 'advice', string> = {
  forecast: "I can't forecast or predict returns: I only report what your data shows about the past.",
  advice: "I can't give investment advice or recommendations: I only report what your data shows.",
};

export interface OfflineDependencies {
  pool: pg.Pool;
  prisma: PrismaClient;
  /** Today's date, for "this year" and "overdue"; defaults to the clock (UTC). */
  now?: () => Date;
}

/**
 * The built-in chat provider used when CHAT_API_URL is unset. No language model. It reads the
 * last user message and:
 * - answers the questions the service can answer from its own data (intent.ts): returns,
 *   custodian comparisons, files, tasks, news, each by a small answerer (answerers/), with real
 *   figures from the same service functions as the REST and GraphQL endpoints, only from data the
 *   caller may read (their organizations; the scopes the endpoints require), and links into the dashboard;
 * - declines forecasts and advice in plain words;
 * - otherwise extracts keywords and searches the caller's own stickies (not trashed), links,
 *   transcript sentences, tasks (with their comments) and news, and lists what it found with
 *   citations that link to the records in the dashboard.
 */
export class OfflineChatProvider implements ChatProvider {
  readonly name = 'offline' as const;
  private readonly search: WorkspaceSearch;
  private readonly organizations: OrganizationService;
  private readonly answerers: { [K in Exclude<Intent['kind'], 'unsupported'>]: Answerer<K> };
  private readonly now: () => Date;

  constructor(deps: OfflineDependencies) {
    this.search = new WorkspaceSearch(deps.pool);
    this.organizations = new OrganizationService(deps.prisma);
    this.now = deps.now ?? (() => new Date());
    const returns = new ReturnsService(deps.pool);
    this.answerers = {
      returns: new ReturnsAnswerer({ pool: deps.pool, returns }),
      comparisons: new ComparisonsAnswerer({ pool: deps.pool, returns }),
      files: new FilesAnswerer(deps.pool),
      tasks: new TasksAnswerer(deps.pool),
      news: new NewsAnswerer({ pool: deps.pool, news: new NewsService(deps.prisma) }),
    };
  }

  async reply(request: ChatRequest): Promise<string> {
    const last = [...request.messages].reverse().find((message) => message.role === 'user');
    const text = last?.content ?? '';
    const today = this.now().toISOString().slice(0, 10);
    const intent = parseIntent(text, today);
    if (intent) {
      let orgIds: Promise<ReadonlySet<string>> | undefined;
      const asker: Asker = {
        userId: request.userId,
        message: text,
        scopes: request.scopes ?? new Set(),
        today,
        orgIds: () => (orgIds ??= this.organizations.membershipIds(request.userId)),
      };
      if (intent.kind === 'unsupported') return composeUnsupported(intent.what);
      return this.answer(intent, asker);
    }
    const query = parseChatQuery(text);
    const sources: readonly Source[] = query.sources.length > 0 ? query.sources : SOURCES;
    if (query.keywords.length === 0 && query.sources.length === 0) {
      return composeOfflineAnswer(query, {}, await this.search.topTags(request.userId));
    }
    const findings = await this.search.find(
      request.userId,
      sources,
      query.keywords.map((k) => likePattern(k.stem)),
      OFFLINE_HITS_PER_SOURCE,
    );
    const empty = countHits(findings) === 0;
    return composeOfflineAnswer(query, findings, empty ? await this.search.topTags(request.userId) : []);
  }

  private answer(intent: Exclude<Intent, { kind: 'unsupported' }>, asker: Asker): Promise<string> {
    switch (intent.kind) {
      case 'returns':
        return this.answerers.returns.answer(intent, asker);
      case 'comparisons':
        return this.answerers.comparisons.answer(intent, asker);
      case 'files':
        return this.answerers.files.answer(intent, asker);
      case 'tasks':
        return this.answerers.tasks.answer(intent, asker);
      case 'news':
        return this.answerers.news.answer(intent, asker);
    }
  }
}

/** A forecast or advice question: what I can't do, and what I can. Pure. */
export function composeUnsupported(what: 'forecast' | 'advice'): string {
  return [UNSUPPORTED_ANSWERS[what], '', OFFLINE_LIMITS, '', 'For example, ask:', ...OFFLINE_EXAMPLES.map((example) => `- ${example}`)].join('\n');
}

function countHits(findings: WorkspaceFindings): number {
  return Object.values(findings).reduce((sum: number, hits: Hits<unknown> | undefined) => sum + (hits?.rows.length ?? 0), 0);
}

const SOURCE_NAMES: Record<Source, string> = {
  stickies: 'stickies',
  links: 'links',
  transcripts: 'transcripts',
  tasks: 'tasks',
  news: 'news',
};

/** The answer text: plain, with one line per hit and a citation in brackets. Pure. */
export function composeOfflineAnswer(query: ChatQuery, findings: WorkspaceFindings, suggestions: readonly string[]): string {
  const lines: string[] = [OFFLINE_INTRO, ''];
  const stems = query.keywords.map((keyword) => keyword.stem);
  const suggest = suggestions.length > 0 ? ` Your most used tags and labels: ${suggestions.join(', ')}.` : '';

  if (query.keywords.length === 0 && query.sources.length === 0) {
    lines.push(
      'Your message has no words I can search for. Ask about a topic, a person, a project, a tag or a site ' +
        '(for example "what do I have on the Q3 rebalance?"), or name what to list ("show my open tasks", "my latest notes").' +
        suggest,
    );
    lines.push(
      '',
      `I also answer questions about your data, for example: ${OFFLINE_EXAMPLES.slice(0, 3)
        .map((e) => `"${e}"`)
        .join(', ')}.`,
    );
    return lines.join('\n').trim();
  }

  const sections = renderSections(findings, stems);
  const names = (query.sources.length > 0 ? query.sources : SOURCES).map((source) => SOURCE_NAMES[source]);
  const where = humanList(names, 'and');
  if (sections.length === 0) {
    const nowhere = humanList(names, 'or');
    if (query.keywords.length === 0) {
      lines.push(`I found nothing in your ${nowhere}${query.sources.includes('tasks') ? ' (open tasks)' : ''}.${suggest}`);
    } else {
      lines.push(
        `I found nothing in your ${nowhere} matching ${quotedKeywords(query.keywords, 'or')}. ` +
          "Try another word from a note's text, a task title, a tag or label, a link's site or a speaker's name." +
          suggest,
      );
      lines.push(
        '',
        `I also answer questions about your data, for example: ${OFFLINE_EXAMPLES.slice(0, 3)
          .map((e) => `"${e}"`)
          .join(', ')}.`,
      );
    }
    return lines.join('\n').trim();
  }

  lines.push(
    query.keywords.length > 0
      ? `Searching your ${where} for ${quotedKeywords(query.keywords, 'and')}, I found:`
      : `Your message names no topic, so here are your most recent ${where}${query.sources.includes('tasks') ? ' (open tasks only)' : ''}:`,
  );
  for (const section of sections) lines.push('', ...section);
  return lines.join('\n').trim();
}

function renderSections(findings: WorkspaceFindings, stems: readonly string[]): string[][] {
  const sections: string[][] = [];
  const add = <T>(heading: string, hits: Hits<T> | undefined, line: (hit: T) => string[]) => {
    if (!hits || hits.rows.length === 0) return;
    const section = [`${heading} (${hits.rows.length}${hits.more ? '+' : ''}):`];
    for (const hit of hits.rows) section.push(...line(hit));
    if (hits.more) section.push(stems.length > 0 ? '- …and more; add a word to narrow the search.' : '- …and more.');
    sections.push(section);
  };

  add('Stickies', findings.stickies, (sticky) => [`- ${excerpt(sticky.content, stems, 160)} ${cite('sticky', shortId(sticky.id), DASHBOARD.stickies)}`]);
  add('Links', findings.links, (link) => [
    `- ${link.title ? `${oneLine(link.title)} — ` : ''}${isWebUrl(link.url) ? mdLink(link.url, link.url) : link.url} ${cite('link', quoteTitle(link.title ?? hostOf(link.url)), DASHBOARD.links)}`,
  ]);
  add('Transcripts', findings.sentences, (sentence) => [
    `- ${dateOf(sentence.occurredAt)}, ${sentence.title}, at ${clock(sentence.startSeconds)}, ${sentence.speaker}: "${excerpt(sentence.text, stems, 200)}" ` +
      cite('transcript', `${quoteTitle(sentence.title)} ${clock(sentence.startSeconds)}`, DASHBOARD.transcript(sentence.transcriptId)),
  ]);
  add('Transcripts', findings.transcripts, (transcript) => [
    `- ${dateOf(transcript.occurredAt)}, ${transcript.title}${transcript.participants.length > 0 ? ` (${transcript.participants.join(', ')})` : ''} ` +
      cite('transcript', quoteTitle(transcript.title), DASHBOARD.transcript(transcript.id)),
  ]);
  add('Tasks', findings.tasks, (task) => {
    const facts = [task.status.replace(/_/g, ' '), `${task.priority} priority`];
    if (task.assignee) facts.push(`assigned to ${task.assignee}`);
    if (task.dueDate) facts.push(`due ${task.dueDate}`);
    const line = [`- ${oneLine(task.title)} (${facts.join(', ')}) ${cite('task', quoteTitle(task.title), DASHBOARD.task(task.id))}`];
    // Show where it matched when the title alone does not explain it.
    if (stems.length > 0 && !containsAny(task.title, stems)) {
      const text = [task.description ?? '', task.comments].find((candidate) => containsAny(candidate, stems));
      if (text) line.push(`  "${excerpt(text, stems, 160)}"`);
    }
    return line;
  });
  add('News', findings.news, (article) => {
    const title = isWebUrl(article.url) ? mdLink(oneLine(article.title), article.url) : oneLine(article.title);
    const line = [`- ${title} (${article.source}, ${dateOf(article.publishedAt)}) ${cite('news', quoteTitle(article.title), DASHBOARD.news)}`];
    if (stems.length > 0 && article.summary && !containsAny(article.title, stems) && containsAny(article.summary, stems)) {
      line.push(`  "${excerpt(article.summary, stems, 160)}"`);
    }
    return line;
  });
  return sections;
}

function quotedKeywords(keywords: readonly Keyword[], conjunction: 'and' | 'or'): string {
  return humanList(
    keywords.map((keyword) => `"${keyword.word}"`),
    conjunction,
  );
}

function humanList(items: readonly string[], conjunction: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}

function containsAny(text: string, stems: readonly string[]): boolean {
  const lower = text.toLowerCase();
  return stems.some((stem) => lower.includes(stem));
}

/** At most `max` characters of `text` around the first keyword, with … where it was cut. */
export function excerpt(text: string, stems: readonly string[], max: number): string {
  const flat = oneLine(text);
  if (flat.length <= max) return flat;
  const lower = flat.toLowerCase();
  const hits = stems.map((stem) => lower.indexOf(stem)).filter((index) => index >= 0);
  const first = hits.length > 0 ? Math.min(...hits) : 0;
  const start = Math.max(0, Math.min(first - Math.floor(max / 3), flat.length - max));
  const end = Math.min(flat.length, start + max);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

function dateOf(date: Date): string {
  return new Date(date).toISOString().slice(0, 10);
}

/** Seconds as m:ss, or h:mm:ss from an hour on. */
export function clock(seconds: number): string {
  const total = Math.max(0, Math.floor(Number(seconds)));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}
