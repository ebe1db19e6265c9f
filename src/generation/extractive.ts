/**
 * The offline summariser's core: sentence splitting, content-word tokenising, TextRank sentence
 * ranking with redundancy removal, and key terms. Pure and deterministic: the same input always
 * gives the same output (ties are broken by input order or alphabetically, never by chance).
 */
import type { SourceReference } from './types.ts';

// ---------------------------------------------------------------------------------------------
// Sentences
// ---------------------------------------------------------------------------------------------

/** Sentences shorter than this (in words) are fragments ("Okay.", "Thanks all.") and dropped. */
export const MIN_SENTENCE_WORDS = 3;

/** Abbreviations after which a period never ends a sentence ("Mr. Smith", "e.g. the"). */
const NEVER_ENDS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'e.g',
  'i.e',
  'cf',
  'approx',
  'fig',
  'dept',
  'mt',
  'gen',
  'col',
  'lt',
  'sgt',
  'capt',
  'rev',
  'hon',
  'viz',
  'al',
]);

/** Abbreviations that may end a sentence: only when the next word starts with a capital letter. */
const MAYBE_ENDS = new Set([
  'etc',
  'inc',
  'ltd',
  'co',
  'corp',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'mon',
  'tue',
  'wed',
  'thu',
  'fri',
  'sat',
  'sun',
]);

const LEADING_MARKUP = /^(?:#{1,6}\s+|>\s*|[-*+•·]\s+|\d{1,3}[.)]\s+|\[[ xX]\]\s+)/;

/**
 * Splits text into sentences. Newlines are boundaries (notes and bullet lists rarely wrap a
 * sentence over lines); markdown bullets, headings and quotes are stripped; periods in
 * abbreviations, initials, decimals and URLs do not split. Fragments under three words are dropped.
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const rawLine of text.normalize('NFKC').split(/\r?\n|\r/)) {
    const line = stripLineMarkup(rawLine);
    if (!line) continue;
    const words = line.split(/\s+/).filter(Boolean);
    let current: string[] = [];
    words.forEach((word, i) => {
      current.push(word);
      if (endsSentence(word, words[i + 1])) {
        pushSentence(sentences, current);
        current = [];
      }
    });
    pushSentence(sentences, current);
  }
  return sentences;
}

function stripLineMarkup(line: string): string {
  let rest = line.trim();
  // Repeat: "> - [ ] item" nests several markers.
  for (let stripped = rest.replace(LEADING_MARKUP, ''); stripped !== rest; stripped = rest.replace(LEADING_MARKUP, '')) {
    rest = stripped.trim();
  }
  return rest;
}

function pushSentence(into: string[], words: string[]): void {
  const counted = words.filter((word) => /[\p{L}\p{N}]/u.test(word));
  if (counted.length >= MIN_SENTENCE_WORDS) into.push(words.join(' '));
}

/** Whether `word` (a whitespace-separated token) closes a sentence, given the next word. */
function endsSentence(word: string, next: string | undefined): boolean {
  if (next === undefined) return false; // the end of the line closes it anyway
  const bare = word.replace(/["'”’)\]]+$/, '');
  if (/[!?…]$/.test(bare)) return true;
  if (!bare.endsWith('.')) return false;
  if (bare.endsWith('..')) return true; // an ellipsis
  const base = bare.replace(/^["'“‘(\[]+/, '').slice(0, -1);
  const lower = base.toLowerCase();
  if (/^\p{Lu}$/u.test(base)) return false; // an initial: "J. Smith"
  if (NEVER_ENDS.has(lower)) return false;
  const nextStartsUpper = /^["'“‘(\[]*\p{Lu}/u.test(next);
  if (lower === 'no') return !/^\d/.test(next); // "No. 5" vs. "The answer is no. Then ..."
  // Dotted acronyms ("U.S.", "a.m.") and a few short forms end a sentence only before a capital.
  if (MAYBE_ENDS.has(lower) || /^(?:\p{L}\.)+\p{L}$/u.test(base)) return nextStartsUpper;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

const STOPWORDS = new Set(
  `a about above across after afterwards again against all almost alone along already also although always am among
  an and another any anybody anyhow anyone anything anyway anywhere are aren't around as at back be became because
  become becomes been before beforehand behind being below beside besides between beyond both but by can can't cannot
  could couldn't did didn't do does doesn't doing don't done down during each either else elsewhere enough etc even
  ever every everyone everything everywhere except few for from further get gets getting got had hadn't has hasn't
  have haven't having he he'd he'll he's hence her here here's hers herself him himself his how however i'd i'll i'm
  i've if in indeed into is isn't it it's its itself just let let's like made make makes many may maybe me meanwhile
  might mine more moreover most mostly much must my myself namely neither never nevertheless next no nobody none
  nor not nothing now nowhere of off often ok okay on once one only onto or other others otherwise our ours ourselves
  out over own per perhaps please quite rather really said same say says see seem seemed seems several shall she
  she'd she'll she's should shouldn't since so some somehow someone something sometime sometimes somewhere still such
  than that that's the their theirs them themselves then thence there there's thereafter thereby therefore these
  they they'd they'll they're they've thing things this those though through throughout thus to together too toward
  towards under until unto up upon us very via was wasn't way we we'd we'll we're we've well were weren't what
  what's whatever when whence whenever where where's whereas whereby wherever whether which while who who's whoever
  whole whom whose why will with within without won't would wouldn't yeah yes yet you you'd you'll you're you've
  your yours yourself yourselves http https www com org net html htm`
    .split(/\s+/)
    .filter(Boolean),
);

/** Words a plural/verb-ending rule would mangle ("news" is not the plural of "new"). */
const NO_STEM = new Set(['news', 'always', 'series', 'species', 'perhaps', 'lens', 'chaos', 'canvas', 'atlas', 'bias', 'alias', 'thus']);

export interface ContentWord {
  /** The word as written, lower-case. */
  word: string;
  /** Its light stem: what comparisons use. */
  stem: string;
}

/** The content words of a text with their stems, in order (duplicates kept: counts matter). */
export function contentWords(text: string): ContentWord[] {
  const raw =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu) ?? [];
  const words: ContentWord[] = [];
  for (const token of raw) {
    const word = token.replace(/’/g, "'").replace(/'s$/, '');
    if (STOPWORDS.has(word) || /^\p{N}+$/u.test(word) || [...word].length <= 2) continue;
    words.push({ word, stem: stem(word) });
  }
  return words;
}

/** Lower-case content-word stems: stopwords, numbers and 1-2 letter tokens dropped. */
export function tokenize(text: string): string[] {
  return contentWords(text).map((w) => w.stem);
}

/** A light English stem: plural `s`/`ies`, `ing`, `ed`, and a final `e` so decide/decided/deciding meet. */
export function stem(word: string): string {
  if (word.length <= 3 || NO_STEM.has(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  if (w.endsWith('ing') && w.length >= 6 && /[aeiouy]/.test(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length >= 6) w = undouble(w.slice(0, -2));

  if (w.length >= 5 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** "shipp" -> "ship", but "call" stays (Porter's rule: not after l, s, z). */
function undouble(w: string): string {
  const last = w.at(-1) ?? '';
  return w.length >= 4 && last === w.at(-2) && /[bcdfghjkmnpqrtvwx]/.test(last) ? w.slice(0, -1) : w;
}

// ---------------------------------------------------------------------------------------------
// Ranking
// ---------------------------------------------------------------------------------------------

export interface RankItem {
  text: string;
  reference?: SourceReference;
  /** Added to the normalised TextRank score (0..1): a finding's weight, a decision cue, recency. */
  boost?: number;
}

export interface RankedSentence {
  text: string;
  score: number;
  reference?: SourceReference;
  /** Position of the item in the input, so callers can map back to their own records. */
  index: number;
}

export interface RankOptions {
  max: number;
  /** Jaccard similarity of stem sets at or above which a lower-ranked sentence is a near-duplicate. */
  redundancy?: number;
}

const DAMPING = 0.85;
const MAX_ITERATIONS = 100;
const TOLERANCE = 1e-10;
export const DEFAULT_REDUNDANCY = 0.5;

/**
 * Ranks sentences by TextRank (cosine similarity of TF-IDF vectors, damped power iteration),
 * normalised to 0..1 and plus each item's boost, then greedily picks the best that are not
 * near-duplicates of one already picked. Quadratic in the number of items: callers cap them.
 */
export function rankSentences(items: readonly RankItem[], options: RankOptions): RankedSentence[] {
  const max = Math.floor(options.max);
  if (items.length === 0 || !(max > 0)) return [];
  const tokens = items.map((item) => tokenize(item.text));
  const similarity = similarityMatrix(tfidfVectors(tokens));
  const centrality = textRank(similarity);
  const top = Math.max(...centrality);
  const scores = centrality.map((c, i) => (top > 0 ? c / top : 0) + finiteBoost(items[i].boost));
  const order = items.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
  return pickDistinct(order, items, tokens, max, options.redundancy ?? DEFAULT_REDUNDANCY).map((i) => ({
    text: items[i].text,
    score: round(scores[i]),
    ...(items[i].reference ? { reference: items[i].reference } : {}),
    index: i,
  }));
}

function finiteBoost(boost: number | undefined): number {
  return boost !== undefined && Number.isFinite(boost) ? boost : 0;
}

/** Greedy redundancy removal: skip a sentence too similar (Jaccard of stems) to one already chosen. */
function pickDistinct(order: number[], items: readonly RankItem[], tokens: string[][], max: number, threshold: number): number[] {
  const chosen: number[] = [];
  const sets = tokens.map((t) => new Set(t));
  const normalised = items.map((item) =>
    item.text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim(),
  );
  for (const i of order) {
    if (chosen.length >= max) break;
    const duplicate = chosen.some((j) => normalised[i] === normalised[j] || jaccard(sets[i], sets[j]) >= threshold);
    if (!duplicate) chosen.push(i);
  }
  return chosen;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/** Unit-length TF-IDF vectors (log-scaled tf, smoothed idf so a single document still has weight). */
function tfidfVectors(docs: string[][]): Map<string, number>[] {
  const df = documentFrequencies(docs);
  return docs.map((doc) => {
    const counts = countTerms(doc);
    const vector = new Map<string, number>();
    let norm = 0;
    for (const [term, count] of counts) {
      const weight = (1 + Math.log(count)) * idf(docs.length, df.get(term) ?? 0);
      vector.set(term, weight);
      norm += weight * weight;
    }
    norm = Math.sqrt(norm);
    for (const [term, weight] of vector) vector.set(term, weight / norm);
    return vector;
  });
}

function idf(documents: number, frequency: number): number {
  return Math.log((documents + 1) / (frequency + 1)) + 1;
}

function documentFrequencies(docs: string[][]): Map<string, number> {
  const df = new Map<string, number>();
  for (const doc of docs) for (const term of new Set(doc)) df.set(term, (df.get(term) ?? 0) + 1);
  return df;
}

function countTerms(doc: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of doc) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

function similarityMatrix(vectors: Map<string, number>[]): Float64Array[] {
  const n = vectors.length;
  const matrix = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i += 1) {
    for (let j = i + 1; j < n; j += 1) {
      const value = cosine(vectors[i], vectors[j]);
      matrix[i][j] = value;
      matrix[j][i] = value;
    }
  }
  return matrix;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, weight] of small) dot += weight * (large.get(term) ?? 0);
  return dot;
}

/**
 * Weighted PageRank over the similarity graph. Sentences sharing no word with any other
 * ("dangling") spread their score evenly, so scores keep summing to 1 and the iteration converges.
 */
function textRank(similarity: Float64Array[]): number[] {
  const n = similarity.length;
  const outWeight = similarity.map((row) => row.reduce((sum, w) => sum + w, 0));
  let scores = new Array<number>(n).fill(1 / n);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration += 1) {
    const dangling = scores.reduce((sum, s, j) => (outWeight[j] === 0 ? sum + s : sum), 0);
    const next = new Array<number>(n).fill((1 - DAMPING) / n + (DAMPING * dangling) / n);
    for (let j = 0; j < n; j += 1) {
      if (outWeight[j] === 0) continue;
      const share = (DAMPING * scores[j]) / outWeight[j];
      const row = similarity[j];
      for (let i = 0; i < n; i += 1) if (row[i] !== 0) next[i] += share * row[i];
    }
    const delta = next.reduce((sum, s, i) => sum + Math.abs(s - scores[i]), 0);
    scores = next;
    if (delta < TOLERANCE) break;
  }
  return scores;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

// ---------------------------------------------------------------------------------------------
// Key terms
// ---------------------------------------------------------------------------------------------

export interface RankedTerm {
  stem: string;
  /** The most frequent written form of the stem (ties: alphabetical). */
  word: string;
  score: number;
}

/** Terms by TF-IDF across the texts (each text one document): total count times smoothed idf. */
export function rankTerms(texts: readonly string[], n: number): RankedTerm[] {
  if (!(n > 0)) return [];
  const docs = texts.map(contentWords);
  const df = documentFrequencies(docs.map((doc) => doc.map((w) => w.stem)));
  const counts = new Map<string, number>();
  const forms = new Map<string, Map<string, number>>();
  for (const { word, stem: s } of docs.flat()) {
    counts.set(s, (counts.get(s) ?? 0) + 1);
    const seen = forms.get(s) ?? new Map<string, number>();
    seen.set(word, (seen.get(word) ?? 0) + 1);
    forms.set(s, seen);
  }
  const terms = [...counts].map(([s, count]) => ({
    stem: s,
    word: commonestForm(forms.get(s) ?? new Map()),
    score: round(count * idf(docs.length, df.get(s) ?? 0)),
  }));
  terms.sort((a, b) => b.score - a.score || compareText(a.word, b.word));
  return terms.slice(0, Math.floor(n));
}

/** The n most characteristic content words of the texts, ties broken alphabetically. */
export function keyTerms(texts: readonly string[], n: number): string[] {
  return rankTerms(texts, n).map((term) => term.word);
}

function commonestForm(forms: Map<string, number>): string {
  return [...forms].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))[0]?.[0] ?? '';
}

/** Code-unit order: locale-independent, so output never depends on the machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Markdown-safe one-liners
// ---------------------------------------------------------------------------------------------

/**
 * One line of text that cannot break the summary's markdown: whitespace collapsed, brackets and
 * backticks removed (they would clash with `[n]` citations and code spans), no leading heading,
 * quote or bullet marker, and a leading "1." escaped so it is not read as a list.
 */
export function markdownSafe(text: string): string {
  return text
    .replace(/[[\]`]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[#>*+\-•\s]+/, '')
    .replace(/^(\d+)([.)])(\s)/, '$1\\$2$3');
}

/** `markdownSafe` cut to at most `max` characters, at a word boundary when there is one, with "…". */
export function excerpt(text: string, max: number): string {
  const line = markdownSafe(text);
  if (line.length <= max) return line;
  const cut = line.slice(0, Math.max(1, max - 1));
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.\-–—]+$/, '')}…`;
}
