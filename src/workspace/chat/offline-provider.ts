import type pg from 'pg';
import { likePattern, parseChatQuery, SOURCES, type ChatQuery, type Keyword, type Source } from './query.ts';
import { WorkspaceSearch, type Hits, type WorkspaceFindings } from './offline-search.ts';
import type { ChatProvider, ChatRequest } from './types.ts';

/** Hits listed per kind of record. */
export const OFFLINE_HITS_PER_SOURCE = 5;

export const OFFLINE_INTRO = "I'm the offline assistant: no language model is configured, so I can't write an answer myself. I can only search your workspace and show you what I find.";

/**
 * The built-in chat provider used when CHAT_API_URL is unset. No language model: it reads the
 * last user message, extracts keywords, searches the caller's own stickies (not trashed), links,
 * transcript sentences, tasks (with their comments) and news, and lists what it found with
 * citations. It says so plainly in its first sentence.
 */
export class OfflineChatProvider implements ChatProvider {
  readonly name = 'offline' as const;
  private readonly search: WorkspaceSearch;

  constructor(pool: pg.Pool) {
    this.search = new WorkspaceSearch(pool);
  }

  async reply(request: ChatRequest): Promise<string> {
    const last = [...request.messages].reverse().find((message) => message.role === 'user');
    const query = parseChatQuery(last?.content ?? '');
    const sources: readonly Source[] = query.sources.length > 0 ? query.sources : SOURCES;
    if (query.keywords.length === 0 && query.sources.length === 0) {
      return composeOfflineAnswer(query, {}, await this.search.topTags(request.userId));
    }
    const findings = await this.search.find(request.userId, sources, query.keywords.map((k) => likePattern(k.stem)), OFFLINE_HITS_PER_SOURCE);
    const empty = countHits(findings) === 0;
    return composeOfflineAnswer(query, findings, empty ? await this.search.topTags(request.userId) : []);
  }
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

  add('Stickies', findings.stickies, (sticky) => [`- ${excerpt(sticky.content, stems, 160)} [sticky ${shortId(sticky.id)}]`]);
  add('Links', findings.links, (link) => [`- ${link.title ? `${oneLine(link.title)} — ` : ''}${link.url} [link ${quoteTitle(link.title ?? hostOf(link.url))}]`]);
  add('Transcripts', findings.sentences, (sentence) => [
    `- ${dateOf(sentence.occurredAt)}, ${sentence.title}, at ${clock(sentence.startSeconds)}, ${sentence.speaker}: "${excerpt(sentence.text, stems, 200)}" ` +
      `[transcript ${quoteTitle(sentence.title)} ${clock(sentence.startSeconds)}]`,
  ]);
  add('Transcripts', findings.transcripts, (transcript) => [
    `- ${dateOf(transcript.occurredAt)}, ${transcript.title}${transcript.participants.length > 0 ? ` (${transcript.participants.join(', ')})` : ''} ` +
      `[transcript ${quoteTitle(transcript.title)}]`,
  ]);
  add('Tasks', findings.tasks, (task) => {
    const facts = [task.status.replace(/_/g, ' '), `${task.priority} priority`];
    if (task.assignee) facts.push(`assigned to ${task.assignee}`);
    if (task.dueDate) facts.push(`due ${task.dueDate}`);
    const line = [`- ${oneLine(task.title)} (${facts.join(', ')}) [task ${quoteTitle(task.title)}]`];
    // Show where it matched when the title alone does not explain it.
    if (stems.length > 0 && !containsAny(task.title, stems)) {
      const text = [task.description ?? '', task.comments].find((candidate) => containsAny(candidate, stems));
      if (text) line.push(`  "${excerpt(text, stems, 160)}"`);
    }
    return line;
  });
  add('News', findings.news, (article) => {
    const line = [`- ${oneLine(article.title)} (${article.source}, ${dateOf(article.publishedAt)}) [news ${quoteTitle(article.title)}]`];
    if (stems.length > 0 && article.summary && !containsAny(article.title, stems) && containsAny(article.summary, stems)) {
      line.push(`  "${excerpt(article.summary, stems, 160)}"`);
    }
    return line;
  });
  return sections;
}

function quotedKeywords(keywords: readonly Keyword[], conjunction: 'and' | 'or'): string {
  return humanList(keywords.map((keyword) => `"${keyword.word}"`), conjunction);
}

function humanList(items: readonly string[], conjunction: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}

export function shortId(id: string): string {
  return `${id.slice(0, 8)}…`;
}

/** A title for a citation: one line, at most 30 characters, in double quotes. */
export function quoteTitle(title: string, max = 30): string {
  const text = oneLine(title).replace(/"/g, "'");
  if (text.length <= max) return `"${text}"`;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  // Cut at a word boundary unless that would drop most of the title.
  return `"${(space >= max / 2 ? cut.slice(0, space) : cut).trimEnd()}…"`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
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
