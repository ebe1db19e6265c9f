/**
 * The header line: the first non-blank line. Names are trimmed and case-insensitive; column order
 * is free. A missing required column, an unknown column or a duplicate column fails the whole
 * file (FileFormatError). Also the file type a header names (detectFileType).
 */
import { COLUMN_SETS, type ColumnSet } from './columns.ts';
import { FILE_TYPES, FileFormatError, type FileType } from './types.ts';

/** The file type with its indefinite article, as a message says it: `a pnl`, `an fx`. */
export function withArticle(type: FileType): string {
  return `${/^(?:[aeiou]|fx)/.test(type) ? 'an' : 'a'} ${type}`;
}

function normaliseHeaderName(name: string): string {
  return name
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase();
}

/**
 * The header's column names (lower case, trimmed), in file order. Throws FileFormatError naming
 * every problem: missing required columns, unknown, empty or duplicate names.
 */
export function validateHeader(fields: string[], type: FileType, line: number): string[] {
  const set = COLUMN_SETS[type];
  const names = fields.map(normaliseHeaderName);
  const problems = headerProblems(names, set);
  if (problems.length) {
    const expected = [...set.required, ...set.optional.map((c) => `${c} (optional)`)].join(', ');
    let message = `invalid ${type} file header (line ${line}): ${problems.join('; ')}. Expected columns: ${expected}`;
    const other = detectFromNames(names);
    if (other !== null && other !== type) message += `. The header looks like ${withArticle(other)} file`;
    throw new FileFormatError(message, line);
  }
  return names;
}

function headerProblems(names: readonly string[], set: ColumnSet): string[] {
  const known = new Set<string>([...set.required, ...set.optional]);
  const problems: string[] = [];

  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) duplicates.add(n);
    seen.add(n);
  }
  const missing = set.required.filter((c) => !seen.has(c));
  const unknown = names.filter((n) => !known.has(n));
  const emptyCount = unknown.filter((n) => n === '').length;
  const unknownNamed = [...new Set(unknown.filter((n) => n !== ''))];

  if (missing.length) problems.push(`missing required column${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
  if (unknownNamed.length) problems.push(`unknown column${unknownNamed.length > 1 ? 's' : ''}: ${unknownNamed.join(', ')}`);
  if (emptyCount) problems.push(`${emptyCount} column${emptyCount > 1 ? 's have' : ' has'} an empty name`);
  if (duplicates.size) problems.push(`duplicate column${duplicates.size > 1 ? 's' : ''}: ${[...duplicates].join(', ')}`);
  return problems;
}

/**
 * The columns that tell the file types apart: a header names a type when it has at least one of
 * that type's columns and none of another's. (date, account_code, entity_name, currency and
 * description are not here: they say nothing or are shared.)
 */
const DISTINGUISHING_COLUMNS: Record<FileType, readonly string[]> = {
  pnl: ['market_value', 'cash_flow', 'flow_timing', 'flow_type'],
  performance: ['return', 'return_unit'],
  fx: ['base', 'quote', 'rate'],
  benchmark: ['benchmark', 'level'],
};

function detectFromNames(names: readonly string[]): FileType | null {
  const matching = FILE_TYPES.filter((type) => DISTINGUISHING_COLUMNS[type].some((column) => names.includes(column)));
  return matching.length === 1 ? matching[0] : null;
}

/** Split one header line into fields: commas, RFC 4180 quotes; enough for a header. */
function splitHeaderLine(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"') {
        if (line[i + 1] === '"') {
          current += '"';
          i++;
        } else quoted = false;
      } else current += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      fields.push(current);
      current = '';
    } else current += ch;
  }
  fields.push(current);
  return fields;
}

/**
 * The file type named by a header line (or any text starting with it: only the
 * first line is read): the one type of which it has a distinguishing column
 * (DISTINGUISHING_COLUMNS: pnl market_value, cash_flow, flow_timing, flow_type;
 * performance return, return_unit; fx base, quote, rate; benchmark benchmark,
 * level); null when it has none, or columns of two types. It does not check that
 * the header is complete: parsing then reports exactly what is missing or unknown.
 */
export function detectFileType(headerLine: string): FileType | null {
  const text = headerLine.replace(/^\uFEFF/, '').replace(/^(?:[ \t]*(?:\r\n|\r|\n))+/, '');
  const first = text.split(/\r\n|\r|\n/, 1)[0] ?? '';
  if (!first.includes(',')) return null;
  return detectFromNames(splitHeaderLine(first).map(normaliseHeaderName));
}
