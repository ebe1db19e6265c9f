/**
 * What a chat message asks for, when it is a question the service can answer from its own data
 * (returns, custodian comparisons, files, tasks, news), or a question it must decline (forecasts,
 * advice). Deterministic patterns over the message; pure (the date "today" is an argument), so
 * every rule is unit-tested (test/workspace/chat-intent.test.ts). Anything else is null: the
 * offline assistant then falls back to its keyword search.
 */

/** A closed date range: returns are measured from the close of `start` to the close of `end`. */
export interface Period {
  start: string;
  end: string;
  /** How the user said it ("this year", "last 30 days", "in 2025"), or how it was chosen. */
  label: string;
  /** True when the message named no period and year to date was assumed. */
  assumed: boolean;
}

export type Measure = 'time-weighted' | 'money-weighted' | 'both';

/** Which account or fund the message names: account codes written in it, and the phrase naming it. */
export interface Subject {
  accountCodes: string[];
  /** The words that name the account ("Harbor Growth Fund LP", "harbor"), or null. */
  phrase: string | null;
}

export type Intent =
  | { kind: 'returns'; subject: Subject; period: Period; measure: Measure }
  | { kind: 'comparisons'; subject: Subject; period: Period | null }
  | { kind: 'files'; filter: 'latest' | 'failed' }
  | { kind: 'tasks'; filter: 'overdue' | 'due-soon' | 'assigned'; assignee: string | null }
  | { kind: 'news'; filter: 'latest' | 'digest' }
  | { kind: 'unsupported'; what: 'forecast' | 'advice' };

export type IntentKind = Intent['kind'];

/** Words naming a kind of workspace record: a message naming one is a workspace question, not a data one. */
const WORKSPACE_WORDS = /\b(?:stick(?:y|ies)|notes?|links?|bookmarks?|transcripts?|meetings?|tasks?|todos?|tickets?|news|articles?|headlines?)\b/;

const FORECAST =
  /\b(?:forecast\w*|predict\w*|projections?|project(?:ed)? (?:returns?|performance)|expected returns?|will (?:it|the|my|our|\w+ fund) (?:return|gain|lose|earn|perform|do)|going to (?:return|gain|lose|earn|perform))\b|\bnext (?:year|month|quarter|week)\b.*\b(?:returns?|perform\w*)\b|\b(?:returns?|perform\w*)\b.*\bnext (?:year|month|quarter|week)\b/;
const ADVICE =
  /\b(?:advice|advise|recommend\w*|should (?:i|we) (?:buy|sell|invest|hold|redeem|switch|rebalance)|is it (?:a )?(?:good|wise|safe) (?:time |idea )?to (?:buy|sell|invest))\b/;

const RETURNS =
  /\b(?:returns?|returned|performance|perform(?:ed|ing)?|twr|mwr|time[- ]weighted|money[- ]weighted|modified dietz|dietz|ytd return|gain(?:ed)?|how (?:did|has|is) .+ (?:do(?:ne|ing)?)\b)/;
const COMPARISONS_STRONG = /\b(?:custodian|reconcil\w*|mismatch\w*)\b/;
const COMPARISONS_WEAK = /\b(?:compar\w+|match(?:es|ed|ing)?|review|investigat\w*)\b/;

/** Account codes as written in the demo data and samples: letters, a dash, digits (DC-1001, ACC-1001). */
const ACCOUNT_CODE = /\b[a-z]{1,6}-\d{2,}\b/gi;

/** The intent of a message, or null when it is not one of the questions answered from data. */
export function parseIntent(message: string, today: string): Intent | null {
  const text = normalise(message);
  if (text.length === 0) return null;
  const workspace = WORKSPACE_WORDS.test(text);

  if (FORECAST.test(text)) return { kind: 'unsupported', what: 'forecast' };
  if (ADVICE.test(text)) return { kind: 'unsupported', what: 'advice' };

  const tasks = parseTasks(text);
  if (tasks) return tasks;
  const news = parseNews(text);
  if (news) return news;
  // A message about notes, tasks, meetings... ("my tasks about returns") is a workspace search.
  if (workspace) return null;

  if (/\b(?:files?|uploads?|uploaded|csvs?|ingest\w*)\b/.test(text)) {
    return { kind: 'files', filter: /\b(?:fail\w*|errors?|reject\w*|wrong|broken|invalid|problems?)\b/.test(text) ? 'failed' : 'latest' };
  }

  const accountCodes = [...new Set((message.match(ACCOUNT_CODE) ?? []).map((code) => code.toUpperCase()))];
  if (COMPARISONS_STRONG.test(text) || (COMPARISONS_WEAK.test(text) && (accountCodes.length > 0 || /\breturns?\b/.test(text)))) {
    return { kind: 'comparisons', subject: { accountCodes, phrase: subjectPhrase(message, COMPARISON_KEYWORDS) }, period: parsePeriod(text, today) };
  }
  if (RETURNS.test(text)) {
    const period = parsePeriod(text, today) ?? { ...yearToDate(today), label: 'year to date', assumed: true };
    return { kind: 'returns', subject: { accountCodes, phrase: subjectPhrase(message, RETURNS_KEYWORDS) }, period, measure: parseMeasure(text) };
  }
  return null;
}

function normalise(message: string): string {
  return message.normalize('NFKC').toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim();
}

function parseMeasure(text: string): Measure {
  const time = /\b(?:time[- ]weighted|twr|linked)\b/.test(text);
  const money = /\b(?:money[- ]weighted|mwr|modified dietz|single[- ]period)\b/.test(text);
  if (time && !money) return 'time-weighted';
  if (money && !time) return 'money-weighted';
  return 'both';
}

function parseTasks(text: string): Intent | null {
  const named = /\b(?:tasks?|todos?|to-dos?|tickets?)\b/.test(text);
  const assigned = /\bassigned to ([\p{L}\p{N}][\p{L}\p{N}.' -]*?)\s*(?:[?.!,;]|$|\b(?:that|which|who|are|is|and|with|due|overdue)\b)/u.exec(text);
  if (assigned && (named || /\b(?:what|which|show|list)\b/.test(text))) {
    return { kind: 'tasks', filter: 'assigned', assignee: assigned[1].trim() };
  }
  if (/\b(?:overdue|past due|late)\b/.test(text) && (named || /^(?:what|which|anything)\b/.test(text))) {
    return { kind: 'tasks', filter: 'overdue', assignee: null };
  }
  if (named && /\bdue (?:today|tomorrow|this week|soon|next week)\b/.test(text)) return { kind: 'tasks', filter: 'due-soon', assignee: null };
  return null;
}

function parseNews(text: string): Intent | null {
  if (!/\b(?:news|headlines?|articles?|digest)\b/.test(text)) return null;
  if (/\bdigest\b/.test(text) || /\b(?:this|past|last) week\b|\bweek's\b|\bweekly\b|\blast 7 days\b/.test(text)) return { kind: 'news', filter: 'digest' };
  // "News about rates" is a topic: the keyword search answers it.
  if (/\b(?:about|on|regarding|mentioning|from)\b/.test(text)) return null;
  if (/\b(?:latest|recent|newest|new|today's|last)\b/.test(text)) return { kind: 'news', filter: 'latest' };
  return null;
}

// ----- periods -----

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** The period a message names, or null. Every range ends no later than today. */
export function parsePeriod(text: string, today: string): Period | null {
  // Account numbers (DC-2001) are not years.
  const t = normalise(text).replace(ACCOUNT_CODE, ' ');
  const [year, month] = [Number(today.slice(0, 4)), Number(today.slice(5, 7))];
  const capped = (range: { start: string; end: string }, label: string): Period => ({
    start: range.start,
    end: range.end < today ? range.end : today,
    label,
    assumed: false,
  });

  const between = /\b(?:from|between) (\d{4}-\d{2}-\d{2}) (?:to|and|until|through) (\d{4}-\d{2}-\d{2})\b/.exec(t);
  if (between) return capped({ start: between[1], end: between[2] }, `${between[1]} to ${between[2]}`);
  const since = /\bsince (\d{4}-\d{2}-\d{2})\b/.exec(t);
  if (since) return capped({ start: since[1], end: today }, `since ${since[1]}`);

  const lastN = /\b(?:last|past|previous) (\d{1,4}) (days?|weeks?|months?|years?)\b/.exec(t);
  if (lastN) {
    const n = Number(lastN[1]);
    const unit = lastN[2].replace(/s$/, '');
    const start = unit === 'day' ? addDays(today, -n) : unit === 'week' ? addDays(today, -7 * n) : addMonths(today, unit === 'month' ? -n : -12 * n);
    return capped({ start, end: today }, `last ${n} ${unit}${n === 1 ? '' : 's'}`);
  }
  if (/\b(?:this year|year to date|year-to-date|ytd|so far this year)\b/.test(t)) return capped(yearToDate(today), 'this year');
  if (/\blast year\b/.test(t)) return capped({ start: `${year - 2}-12-31`, end: `${year - 1}-12-31` }, `last year (${year - 1})`);
  if (/\b(?:this month|month to date|month-to-date|mtd)\b/.test(t)) return capped({ start: endOfMonth(year, month - 1), end: today }, 'this month');
  if (/\blast month\b/.test(t))
    return capped({ start: endOfMonth(year, month - 2), end: endOfMonth(year, month - 1) }, `last month (${monthName(year, month - 1)})`);
  if (/\b(?:this quarter|quarter to date|qtd)\b/.test(t)) {
    const first = Math.floor((month - 1) / 3) * 3 + 1;
    return capped({ start: endOfMonth(year, first - 1), end: today }, 'this quarter');
  }
  if (/\blast quarter\b/.test(t)) {
    const first = Math.floor((month - 1) / 3) * 3 + 1;
    return capped({ start: endOfMonth(year, first - 4), end: endOfMonth(year, first - 1) }, 'last quarter');
  }
  const named = new RegExp(`\\b(${MONTHS.join('|')}) (\\d{4})\\b`).exec(t);
  if (named) {
    const m = MONTHS.indexOf(named[1]) + 1;
    const y = Number(named[2]);
    return capped({ start: endOfMonth(y, m - 1), end: endOfMonth(y, m) }, `${named[1][0].toUpperCase()}${named[1].slice(1)} ${y}`);
  }
  const inYear = /\b(?:in|for|during|of|over) (\d{4})\b/.exec(t) ?? /\b(20\d{2}|19\d{2})\b/.exec(t.replace(/\d{4}-\d{2}-\d{2}/g, ''));
  if (inYear) {
    const y = Number(inYear[1]);
    if (y >= 1900 && y <= year) return capped({ start: `${y - 1}-12-31`, end: `${y}-12-31` }, `in ${y}`);
  }
  return null;
}

/** From the close of last year's last day to today. */
export function yearToDate(today: string): { start: string; end: string } {
  return { start: `${Number(today.slice(0, 4)) - 1}-12-31`, end: today };
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, last));
  return target.toISOString().slice(0, 10);
}

/** The last day of month `month` (1-12; 0 and below roll back into earlier years). */
function endOfMonth(year: number, month: number): string {
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
}

function monthName(year: number, month: number): string {
  const d = new Date(Date.UTC(year, month - 1, 1));
  const name = MONTHS[d.getUTCMonth()];
  return `${name[0].toUpperCase()}${name.slice(1)} ${d.getUTCFullYear()}`;
}

// ----- the account a message names -----

const RETURNS_KEYWORDS = /\b(?:returns?|returned|performance|perform(?:ed|ing)?|twr|mwr|dietz|gain(?:ed)?)\b/i;
const COMPARISON_KEYWORDS = /\b(?:custodian|compar\w+|reconcil\w*|mismatch\w*|breaks?|match(?:es|ed|ing)?|review|investigat\w*)\b/i;

/** Words around an account's name that are not part of it. */
const FILLER = new Set(
  `what whats what's is was were are the a an my our of for on in show me tell give list please how much many did does do has have had done doing
  time-weighted time weighted money-weighted money modified dietz twr mwr return returns returned performance perform performed performing gain gained
  custodian comparison comparisons compare compared reconciliation match matches matched review investigate vs versus computed account accounts fund's
  this last year month quarter week ytd mtd qtd so far to date since from between and until through over during days day weeks months years
  daily linked single period single-period entity portfolio`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * The phrase naming the account: the words after "of"/"for"/"on" following the question's key word
 * (or before it: "Harbor Growth Fund LP returns"), without periods, dates, codes and filler words.
 */
export function subjectPhrase(message: string, keyword: RegExp = RETURNS_KEYWORDS): string | null {
  let text = message.normalize('NFKC').replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim();
  text = text
    .replace(/\b(?:from|between) \d{4}-\d{2}-\d{2} (?:to|and|until|through) \d{4}-\d{2}-\d{2}\b/gi, ' ')
    .replace(/\bsince \d{4}-\d{2}-\d{2}\b/gi, ' ')
    .replace(/\b(?:last|past|previous) \d{1,4} (?:days?|weeks?|months?|years?)\b/gi, ' ')
    .replace(/\b(?:this|last) (?:year|month|quarter|week)\b|\b(?:year|month|quarter)[- ]to[- ]date\b|\bso far\b|\b(?:ytd|mtd|qtd)\b/gi, ' ')
    .replace(new RegExp(`\\b(?:${MONTHS.join('|')}) \\d{4}\\b`, 'gi'), ' ')
    .replace(/\b(?:in|for|during|over) \d{4}\b/gi, ' ')
    .replace(ACCOUNT_CODE, ' ');
  const at = keyword.exec(text);
  let candidate = '';
  if (at) {
    const after = text.slice(at.index + at[0].length);
    const of = /\b(?:of|for|on)\s+(.+)$/i.exec(after);
    candidate = of ? of[1] : text.slice(0, at.index);
    if (!of && words(candidate).length === 0) candidate = after;
  } else {
    candidate = text;
  }
  const kept = words(candidate);
  return kept.length > 0 ? kept.join(' ') : null;
}

function words(text: string): string[] {
  const tokens = text
    .replace(/[?!.,;:()"]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  // Filler words are dropped only at the edges: "Bank of Nova" keeps its "of".
  let start = 0;
  let end = tokens.length;
  while (start < end && FILLER.has(tokens[start].toLowerCase().replace(/'s$/, ''))) start += 1;
  while (end > start && FILLER.has(tokens[end - 1].toLowerCase().replace(/'s$/, ''))) end -= 1;
  return tokens.slice(start, end).map((token) => token.replace(/'s$/i, ''));
}
