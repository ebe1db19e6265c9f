/**
 * Turning a chat message into a workspace search: keywords (with a light stem each, matched as
 * substrings with ILIKE) and the kinds of records the message names ("tasks", "notes", ...).
 * Pure functions; the offline provider runs the search.
 */

export const SOURCES = ['stickies', 'links', 'transcripts', 'tasks', 'news'] as const;
export type Source = (typeof SOURCES)[number];

export interface Keyword {
  /** The word as the user wrote it (lower-case). */
  word: string;
  /** What is searched for: the word without a plural or -ing/-ed ending (at least 3 characters). */
  stem: string;
}

export interface ChatQuery {
  keywords: Keyword[];
  /** Kinds of records the message names; empty = search all of them. */
  sources: Source[];
}

export const MAX_KEYWORDS = 8;

/** Words that name a kind of record: they pick where to search instead of being searched for. */
const SOURCE_WORDS: Record<string, Source> = {
  sticky: 'stickies',
  stickies: 'stickies',
  note: 'stickies',
  notes: 'stickies',
  link: 'links',
  links: 'links',
  bookmark: 'links',
  bookmarks: 'links',
  transcript: 'transcripts',
  transcripts: 'transcripts',
  meeting: 'transcripts',
  meetings: 'transcripts',
  task: 'tasks',
  tasks: 'tasks',
  todo: 'tasks',
  todos: 'tasks',
  ticket: 'tasks',
  tickets: 'tasks',
  news: 'news',
  article: 'news',
  articles: 'news',
  headline: 'news',
  headlines: 'news',
};

const STOPWORDS = new Set(
  `a about above after again against all also am an and any anything are aren't as at be because been before being below
  between both but by can can't could couldn't did didn't do does doesn't doing don't down during each either else ever
  every everything few find for found from further get gets got had hadn't has hasn't have haven't having he her here
  hers herself him himself his how i i'd i'll i'm i've if in into is isn't it it's its itself just know last latest let
  let's like list look looking made make many may me might mine more most much must my myself need no nor not nothing now
  of off on once one only or other others our ours ourselves out over own please recent recently regarding related
  remind said same say says search see shall she should show shouldn't so some something such tell than thank thanks that
  that's the their theirs them themselves then there there's these they they're thing things this those through to too
  under until up us very want was wasn't we we're were weren't what what's whatever when where which while who whom whose
  why will with within without won't would wouldn't yes yet you you're your yours yourself hi hello hey okay ok sure
  anyone anybody someone somebody give gave help mention mentioned mentions talk talked discuss discussed`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Words that describe the state of tasks ("my open tasks"): with tasks named they say which tasks,
 * which the listing already does (open ones), so they are not searched for; elsewhere they are.
 */
const TASK_STATE_WORDS = new Set(['open', 'pending', 'outstanding', 'active', 'current', 'unfinished']);

/** Keywords and named sources of a message, in the order written, without duplicates. */
export function parseChatQuery(text: string): ChatQuery {
  const tokens =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
  const keywords: Keyword[] = [];
  const sources = new Set<Source>();
  const seen = new Set<string>();
  for (const raw of tokens) {
    const token = raw.replace(/’/g, "'").replace(/'s$/, '');
    const source = SOURCE_WORDS[token];
    if (source) {
      sources.add(source);
      continue;
    }
    if (STOPWORDS.has(token) || !searchable(token)) continue;
    const stem = stemOf(token);
    if (seen.has(stem)) continue;
    seen.add(stem);
    keywords.push({ word: token, stem });
    if (keywords.length === MAX_KEYWORDS) break;
  }
  const named = SOURCES.filter((source) => sources.has(source));
  const aboutTasks = named.length > 0 && named.every((source) => source === 'tasks');
  return { keywords: aboutTasks ? keywords.filter((k) => !TASK_STATE_WORDS.has(k.word)) : keywords, sources: named };
}

/** Three characters at least, or two with a digit (`q3`, `v2`); not a bare number under 3 digits. */
function searchable(token: string): boolean {
  if (/^\d+$/.test(token)) return token.length >= 3;
  return token.length >= 3 || (token.length === 2 && /\d/.test(token));
}

/** A light English stem, kept only when at least 4 characters remain: substring search does the rest. */
export function stemOf(word: string): string {
  for (const [suffix, replacement] of [
    ['ies', ''],
    ['ing', ''],
    ['ed', ''],
    ['es', 'e'],
    ['s', ''],
  ] as const) {
    if (!word.endsWith(suffix)) continue;
    if (suffix === 's' && (word.endsWith('ss') || word.endsWith('us') || word.endsWith('is'))) continue;
    const stem = word.slice(0, -suffix.length) + replacement;
    if (stem.length >= 4) return stem;
  }
  return word;
}

/** `%stem%` for ILIKE, with the LIKE metacharacters escaped. */
export function likePattern(stem: string): string {
  return `%${stem.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
