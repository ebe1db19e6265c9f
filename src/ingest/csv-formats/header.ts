/**
 * The header line: the first non-blank line. Names are trimmed and case-insensitive; column order
 * is free. A missing required column, an unknown column or a duplicate column fails the whole
 * file (FileFormatError). Also the file type a header names (detectFileType).
 */
import { COLUMN_SETS, type ColumnSet } from './columns.ts';
import { FileFormatError, type FileType } from './types.ts';

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
    if (other !== null && other !== type) message += `. The header looks like a ${other} file`;
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

function detectFromNames(names: readonly string[]): FileType | null {
  const has = (c: string) => names.includes(c);
  const pnl = has('market_value') || has('cash_flow') || has('flow_timing');
  const perf = has('return') || has('return_unit');
  if (pnl && !perf) return 'pnl';
  if (perf && !pnl) return 'performance';
  return null;
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
 * first line is read). `pnl` when it has market_value, cash_flow or flow_timing and
 * no return column; `performance` when it has return or return_unit and no pnl
 * column; otherwise null. It does not check that the header is complete: parsing
 * then reports exactly what is missing or unknown.
 */
export function detectFileType(headerLine: string): FileType | null {
  const text = headerLine.replace(/^\uFEFF/, '').replace(/^(?:[ \t]*(?:\r\n|\r|\n))+/, '');
  const first = text.split(/\r\n|\r|\n/, 1)[0] ?? '';
  if (!first.includes(',')) return null;
  return detectFromNames(splitHeaderLine(first).map(normaliseHeaderName));
}
