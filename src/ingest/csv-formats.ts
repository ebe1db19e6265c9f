/**
 * The two uploaded CSV formats (`pnl` and `performance`): streaming parsers with
 * row-level validation, file type detection from the header, and a content sniff
 * for the upload's 415 decision.
 *
 * Rules shared by both formats
 * - UTF-8 text, optional BOM, LF / CRLF / CR line endings, RFC 4180 quoting
 *   (a quoted field may contain commas, quotes as "" and line breaks).
 * - The first non-blank line is the header. Header names are trimmed and
 *   case-insensitive; column order is free. A missing required column, an unknown
 *   column or a duplicate column throws `FileFormatError`: the whole file fails.
 * - Blank lines (empty, whitespace only, or only commas) are skipped anywhere.
 * - Values are trimmed. Every data row must have as many fields as the header.
 * - Line numbers are physical lines of the file, 1-based, the header being line 1
 *   (when there are no blank lines above it). A record that spans several lines
 *   because of a quoted line break is reported at the line where it starts, and
 *   the following records keep their true physical line numbers.
 * - Dates: `YYYY-MM-DD`, a real calendar date, years 1900..9999.
 * - Numbers: plain decimals `[+|-]digits[.digits]`; no thousands separators,
 *   decimal commas, currency symbols, percent signs, exponents, parentheses,
 *   spaces, NaN or Infinity. Digit limits follow the database columns so that
 *   nothing is silently rounded or overflows on insert:
 *     money (market_value, cash_flow): <= 16 integer digits, <= 4 fraction digits
 *       (NUMERIC(20,4));
 *     returns, after conversion to a fraction: <= 8 integer digits, <= 12 fraction
 *       digits (NUMERIC(20,12)); so a `percent` value may have up to 10 fraction
 *       digits and a `bps` value up to 8.
 *   Trailing zeros beyond the limit are accepted (no information is lost);
 *   any other extra digit is an error, never rounded.
 * - account_code: 1..64 characters; entity_name: 1..200 characters; an account
 *   must use the same entity_name on every row of a file, and one entity_name
 *   cannot be used for two accounts (entities are unique by name and by code per
 *   organization).
 *
 * Numbers are handled as decimal strings only (digit counting and canonical form on
 * the text, decimal.js for the exact unit conversion), never binary floats.
 */
import { Readable, pipeline } from 'node:stream';
import { isUtf8 } from 'node:buffer';
import { parse, CsvError, type InfoRecord } from 'csv-parse';
import { Decimal } from 'decimal.js';

// ---------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------

export type FileType = 'pnl' | 'performance';
export type FlowTiming = 'start_of_day' | 'end_of_day';
export type ReturnUnit = 'percent' | 'fraction' | 'bps';

export type PnlRow = {
  /** physical line where the record starts (header = line 1) */
  line: number;
  accountCode: string;
  entityName: string;
  /** YYYY-MM-DD */
  date: string;
  /** canonical decimal string (e.g. "1250000.5"), null when the row only carries a flow */
  marketValue: string | null;
  /** canonical decimal string, positive = into the portfolio; null = no flow (empty or zero) */
  cashFlow: string | null;
  /** explicit timing; null = the default convention (set only when cashFlow is not null) */
  flowTiming: FlowTiming | null;
  description: string | null;
};

export type PerformanceRow = {
  line: number;
  accountCode: string;
  entityName: string;
  date: string;
  /** the custodian's return as a fraction, canonical decimal string (1.23 percent -> "0.0123") */
  returnFraction: string;
};

export type RowError = {
  line: number;
  /** the (lower-case) header name of the offending column; null for whole-row problems */
  column: string | null;
  message: string;
};

export type ParseItem<R> = { row: R } | { error: RowError };

export type CsvInput = NodeJS.ReadableStream | AsyncIterable<Buffer | string>;

/** The file as a whole is unusable (bad header, broken quoting, empty file). */
export class FileFormatError extends Error {
  override readonly name = 'FileFormatError';
  /** physical line the problem was found on, when known */
  readonly line: number | null;
  constructor(message: string, line: number | null = null) {
    super(message);
    this.line = line;
  }
}

// ---------------------------------------------------------------------------
// Column sets
// ---------------------------------------------------------------------------

export const PNL_COLUMNS = {
  required: ['account_code', 'entity_name', 'date', 'market_value', 'cash_flow'],
  optional: ['flow_timing', 'description'],
} as const;

export const PERFORMANCE_COLUMNS = {
  required: ['account_code', 'entity_name', 'date', 'return', 'return_unit'],
  optional: [],
} as const;

interface ColumnSet {
  readonly required: readonly string[];
  readonly optional: readonly string[];
}

const COLUMN_SETS: Record<FileType, ColumnSet> = { pnl: PNL_COLUMNS, performance: PERFORMANCE_COLUMNS };

// Limits (see the header comment).
export const LIMITS = {
  moneyIntegerDigits: 16,
  moneyFractionDigits: 4,
  returnIntegerDigits: 8,
  returnFractionDigits: 12,
  accountCodeLength: 64,
  entityNameLength: 200,
  descriptionLength: 1000,
  /** longest accepted raw number text (guards the digit counting against huge strings) */
  numberTextLength: 64,
  /** one CSV record may not exceed this many characters (an unbalanced quote would otherwise buffer the file) */
  maxRecordChars: 65_536,
  minYear: 1900,
  maxYear: 9999,
} as const;

// ---------------------------------------------------------------------------
// Decimal helpers
// ---------------------------------------------------------------------------

/** Local constructor: enough precision that the unit conversion is exact, plain notation out. */
const Dec = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -1000, toExpPos: 1000 });

const PLAIN_DECIMAL = /^[+-]?\d+(?:\.\d+)?$/;

/**
 * A validated plain decimal split into parts: `integer` without leading zeros,
 * `fraction` without trailing zeros, so their lengths are the significant digit counts.
 */
interface PlainNumber {
  negative: boolean;
  integer: string;
  fraction: string;
}

type NumberResult = { ok: true; value: PlainNumber } | { ok: false; message: string };

function decompose(text: string): PlainNumber {
  let body = text;
  let negative = false;
  if (body[0] === '-' || body[0] === '+') {
    negative = body[0] === '-';
    body = body.slice(1);
  }
  const dot = body.indexOf('.');
  const integer = (dot < 0 ? body : body.slice(0, dot)).replace(/^0+/, '');
  const fraction = dot < 0 ? '' : body.slice(dot + 1).replace(/0+$/, '');
  return { negative: negative && (integer !== '' || fraction !== ''), integer, fraction };
}

/** Canonical plain string: no plus sign, leading or trailing zeros, exponent or "-0". */
function canonical(n: PlainNumber): string {
  return `${n.negative ? '-' : ''}${n.integer || '0'}${n.fraction ? `.${n.fraction}` : ''}`;
}

/** Parse a plain decimal; explains the common wrong formats. Does not apply digit limits. */
function parsePlainDecimal(text: string): NumberResult {
  if (text.length > LIMITS.numberTextLength) {
    return { ok: false, message: `number is too long (${text.length} characters)` };
  }
  if (PLAIN_DECIMAL.test(text)) return { ok: true, value: decompose(text) };
  const shown = JSON.stringify(text);
  let why = 'expected a plain decimal such as -1234.56';
  if (/^[+-]?(nan|inf(inity)?)$/i.test(text)) why = 'NaN and Infinity are not numbers';
  else if (/^[+-]?(\d+\.?\d*|\.\d+)e[+-]?\d+$/i.test(text)) why = 'exponent notation is not allowed';
  else if (/[$€£¥₹]|\b(usd|eur|gbp|chf|jpy)\b/i.test(text)) why = 'currency symbols are not allowed';
  else if (text.includes('%')) why = 'percent signs are not allowed (state the unit in return_unit)';
  else if (/^\(.*\)$/.test(text)) why = 'parentheses for negatives are not allowed; use a leading minus';
  else if (text.includes(',')) why = 'commas are not allowed (no thousands separators or decimal commas)';
  else if (/\d[\s'_\u00a0\u202f]\d/.test(text)) why = 'digit group separators are not allowed';
  else if (/^[+-]?\.\d+$/.test(text) || /^[+-]?\d+\.$/.test(text)) why = 'a decimal point needs digits on both sides';
  return { ok: false, message: `${shown} is not a valid number: ${why}` };
}

function parseMoney(text: string): NumberResult {
  const parsed = parsePlainDecimal(text);
  if (!parsed.ok) return parsed;
  const digits = { integer: parsed.value.integer.length, fraction: parsed.value.fraction.length };
  if (digits.integer > LIMITS.moneyIntegerDigits) {
    return { ok: false, message: `${JSON.stringify(text)} has more than ${LIMITS.moneyIntegerDigits} integer digits` };
  }
  if (digits.fraction > LIMITS.moneyFractionDigits) {
    return {
      ok: false,
      message: `${JSON.stringify(text)} has more than ${LIMITS.moneyFractionDigits} decimal places (amounts are not rounded)`,
    };
  }
  return parsed;
}

const UNIT_DIVISORS: Record<ReturnUnit, Decimal> = {
  fraction: new Dec(1),
  percent: new Dec(100),
  bps: new Dec(10_000),
};

/**
 * A return in `unit` as a canonical fraction string, or an error message.
 * Exact: the divisors are powers of ten and the precision exceeds any accepted input.
 */
export function normaliseReturn(text: string, unit: ReturnUnit): { ok: true; value: string } | { ok: false; message: string } {
  const parsed = parsePlainDecimal(text);
  if (!parsed.ok) return parsed;
  const fraction = decompose(new Dec(canonical(parsed.value)).div(UNIT_DIVISORS[unit]).toFixed());
  const digits = { integer: fraction.integer.length, fraction: fraction.fraction.length };
  if (digits.integer > LIMITS.returnIntegerDigits) {
    return { ok: false, message: `${JSON.stringify(text)} ${unit} is out of range (more than ${LIMITS.returnIntegerDigits} integer digits as a fraction)` };
  }
  if (digits.fraction > LIMITS.returnFractionDigits) {
    const allowed = LIMITS.returnFractionDigits - (unit === 'percent' ? 2 : unit === 'bps' ? 4 : 0);
    return {
      ok: false,
      message: `${JSON.stringify(text)} ${unit} has too many decimal places: at most ${allowed} for ${unit} (${LIMITS.returnFractionDigits} as a fraction); returns are not rounded`,
    };
  }
  return { ok: true, value: canonical(fraction) };
}

// ---------------------------------------------------------------------------
// Dates and text
// ---------------------------------------------------------------------------

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function checkDate(text: string): string | null {
  const m = ISO_DATE.exec(text);
  if (!m) return `${JSON.stringify(text)} is not a date in YYYY-MM-DD format`;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < LIMITS.minYear || year > LIMITS.maxYear) {
    return `${text}: year must be between ${LIMITS.minYear} and ${LIMITS.maxYear}`;
  }
  if (month < 1 || month > 12) return `${text} is not a real calendar date (month ${m[2]})`;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (day < 1 || day > monthDays) return `${text} is not a real calendar date`;
  return null;
}

// C0 controls except tab, DEL, C1 controls. Line breaks are allowed only in description.
const CONTROL_CHARS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;
const CONTROL_CHARS_NO_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

function checkText(text: string, label: string, maxLength: number, allowLineBreaks = false): string | null {
  if (text.length > maxLength) return `${label} is longer than ${maxLength} characters`;
  if ((allowLineBreaks ? CONTROL_CHARS_NO_BREAKS : CONTROL_CHARS).test(text)) {
    return `${label} contains control characters`;
  }
  return null;
}

// ---------------------------------------------------------------------------
// Header handling
// ---------------------------------------------------------------------------

function normaliseHeaderName(name: string): string {
  return name
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase();
}

function validateHeader(fields: string[], type: FileType, line: number): string[] {
  const set = COLUMN_SETS[type];
  const names = fields.map(normaliseHeaderName);
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

  if (problems.length) {
    const expected = [...set.required, ...set.optional.map((c) => `${c} (optional)`)].join(', ');
    let message = `invalid ${type} file header (line ${line}): ${problems.join('; ')}. Expected columns: ${expected}`;
    const other = detectFromNames(names);
    if (other !== null && other !== type) message += `. The header looks like a ${other} file`;
    throw new FileFormatError(message, line);
  }
  return names;
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

// ---------------------------------------------------------------------------
// Streaming record reader
// ---------------------------------------------------------------------------

interface LinedRecord {
  record: string[];
  /** physical start line */
  line: number;
}

/** Trimmed field values of one record, read by column name. */
class RecordValues {
  constructor(
    private readonly index: ReadonlyMap<string, number>,
    private readonly fields: readonly string[],
  ) {}
  get(column: string): string | undefined {
    const i = this.index.get(column);
    return i === undefined ? undefined : this.fields[i];
  }
}

interface RawRecord {
  line: number;
  values: RecordValues;
}

const LINE_BREAK = /\r\n|\r|\n/g;

function countLineBreaks(s: string): number {
  if (s.indexOf('\n') < 0 && s.indexOf('\r') < 0) return 0;
  return s.match(LINE_BREAK)?.length ?? 0;
}

function toReadable(input: CsvInput): NodeJS.ReadableStream {
  const maybeStream = input as NodeJS.ReadableStream;
  if (typeof maybeStream.pipe === 'function' && typeof maybeStream.on === 'function') return maybeStream;
  return Readable.from(input as AsyncIterable<Buffer | string>);
}

/** csv-parse errors become FileFormatError; anything else (I/O errors, FileFormatError) passes through. */
function csvErrorToFileError(err: unknown, startLine: number): unknown {
  if (err instanceof CsvError) {
    switch (err.code) {
      case 'CSV_QUOTE_NOT_CLOSED':
        return new FileFormatError(`malformed CSV: a quoted field starting at line ${startLine} is never closed`, startLine);
      case 'CSV_MAX_RECORD_SIZE':
        return new FileFormatError(
          `malformed CSV: the record starting at line ${startLine} is longer than ${LIMITS.maxRecordChars} characters (unbalanced quote?)`,
          startLine,
        );
      default:
        return new FileFormatError(`malformed CSV near line ${startLine}: ${err.message}`, startLine);
    }
  }
  return err;
}

/**
 * Streams the records of a CSV file of `type`: validates the header (throws
 * FileFormatError), skips blank lines, checks the field count and UTF-8, and
 * yields trimmed values keyed by column name with the physical start line.
 *
 * Line numbers: csv-parse's `info.lines` (and `raw`) miscount CRLF line breaks
 * inside quoted fields, so the start line is derived instead: every record
 * occupies 1 + (line breaks inside its fields) physical lines, and the record
 * info's `empty_lines` counts the blank lines the parser skipped before it. The
 * count is kept in `on_record`, which runs synchronously as each record is
 * parsed, so it is also right for an error raised while records are still
 * buffered ahead of the consumer.
 */
async function* readRecords(input: CsvInput, type: FileType): AsyncGenerator<{ record: RawRecord } | { error: RowError }> {
  let parsedLines = 0; // physical lines taken by the records parsed so far (skipped blank lines excluded)
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    // a stray quote inside an unquoted field is kept as text (and then fails value validation)
    relax_quotes: true,
    max_record_size: LIMITS.maxRecordChars,
    on_record: (record: string[], context: InfoRecord) => {
      const line = parsedLines + context.empty_lines + 1;
      let breaks = 0;
      for (const field of record) breaks += countLineBreaks(field);
      parsedLines += 1 + breaks;
      return { record, line } satisfies LinedRecord as unknown as string[];
    },
  });
  pipeline(toReadable(input), parser, () => {
    /* errors surface through the async iterator below */
  });

  let columns: string[] | null = null;
  let columnIndex: Map<string, number> | null = null;
  try {
    for await (const { record, line } of parser as AsyncIterable<LinedRecord>) {
      // whitespace-only or commas-only lines count as blank
      if (record.every((f) => f.trim() === '')) continue;

      if (columns === null) {
        columns = validateHeader(record, type, line);
        columnIndex = new Map(columns.map((name, i) => [name, i]));
        continue;
      }

      if (record.length !== columns.length) {
        yield {
          error: {
            line,
            column: null,
            message: `expected ${columns.length} fields as in the header, found ${record.length}`,
          },
        };
        continue;
      }

      let badEncoding = false;
      for (let i = 0; i < record.length; i++) {
        const value = record[i];
        if (value.includes('\uFFFD')) {
          badEncoding = true;
          yield { error: { line, column: columns[i], message: 'invalid UTF-8 byte sequence (the file must be UTF-8 encoded)' } };
        }
        record[i] = value.trim();
      }
      if (badEncoding) continue;
      yield { record: { line, values: new RecordValues(columnIndex!, record) } };
    }
  } catch (err) {
    const emptyLines = err instanceof CsvError && typeof err.empty_lines === 'number' ? err.empty_lines : 0;
    throw csvErrorToFileError(err, parsedLines + emptyLines + 1);
  } finally {
    // stops reading the source when the consumer leaves early
    parser.destroy();
  }
  if (columns === null) throw new FileFormatError(`the file is empty: a ${type} header row is required`, null);
}

// ---------------------------------------------------------------------------
// Per-file consistency (entity names, duplicates)
// ---------------------------------------------------------------------------

/** A validated YYYY-MM-DD as the integer yyyymmdd (a cheap map key). */
function dateKey(date: string): number {
  return Number(date.slice(0, 4)) * 10_000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

class FileConsistency {
  private readonly entityByAccount = new Map<string, { name: string; line: number }>();
  private readonly accountByEntity = new Map<string, { code: string; line: number }>();
  /** account code -> (yyyymmdd -> line) */
  private readonly seen = new Map<string, Map<number, number>>();

  /** entity_name errors for a row whose other fields are valid (does not record). */
  entityProblem(accountCode: string, entityName: string): string | null {
    const byAccount = this.entityByAccount.get(accountCode);
    if (byAccount && byAccount.name !== entityName) {
      return `entity_name ${JSON.stringify(entityName)} differs from ${JSON.stringify(byAccount.name)} used for account ${accountCode} on line ${byAccount.line}`;
    }
    const byEntity = this.accountByEntity.get(entityName);
    if (byEntity && byEntity.code !== accountCode) {
      return `entity_name ${JSON.stringify(entityName)} is already used for account ${byEntity.code} on line ${byEntity.line}`;
    }
    return null;
  }

  /** line of an earlier row with the same key, if any (does not record). */
  duplicateOf(accountCode: string, date: string): number | undefined {
    return this.seen.get(accountCode)?.get(dateKey(date));
  }

  /** records a valid row; `date` is null for a row that takes no (account, date) slot */
  record(line: number, accountCode: string, entityName: string, date: string | null): void {
    if (!this.entityByAccount.has(accountCode)) this.entityByAccount.set(accountCode, { name: entityName, line });
    if (!this.accountByEntity.has(entityName)) this.accountByEntity.set(entityName, { code: accountCode, line });
    if (date !== null) {
      let dates = this.seen.get(accountCode);
      if (!dates) this.seen.set(accountCode, (dates = new Map()));
      dates.set(dateKey(date), line);
    }
  }
}

/** Checks account_code, entity_name and date; pushes errors. */
function commonFields(rec: RawRecord, errors: RowError[]): { accountCode: string; entityName: string; date: string } {
  const { line, values } = rec;
  const accountCode = values.get('account_code') ?? '';
  const entityName = values.get('entity_name') ?? '';
  const date = values.get('date') ?? '';
  if (accountCode === '') errors.push({ line, column: 'account_code', message: 'account_code is required' });
  else {
    const problem = checkText(accountCode, 'account_code', LIMITS.accountCodeLength);
    if (problem) errors.push({ line, column: 'account_code', message: problem });
  }
  if (entityName === '') errors.push({ line, column: 'entity_name', message: 'entity_name is required' });
  else {
    const problem = checkText(entityName, 'entity_name', LIMITS.entityNameLength);
    if (problem) errors.push({ line, column: 'entity_name', message: problem });
  }
  if (date === '') errors.push({ line, column: 'date', message: 'date is required' });
  else {
    const problem = checkDate(date);
    if (problem) errors.push({ line, column: 'date', message: problem });
  }
  return { accountCode, entityName, date };
}

// ---------------------------------------------------------------------------
// pnl
// ---------------------------------------------------------------------------

/**
 * Streams a `pnl` file. Yields `{ row }` for each valid data row and `{ error }`
 * for each problem of an invalid row (a row can produce several errors and then
 * yields no row). Throws FileFormatError when the file as a whole is unusable.
 *
 * Row rules: market_value and cash_flow may each be empty but not both; a
 * cash_flow of zero counts as no flow (and a row with an empty market_value and
 * a zero cash_flow is an error); flow_timing is start_of_day | end_of_day
 * (case-insensitive) or empty for the default convention, an error when
 * cash_flow is empty and ignored when cash_flow is zero; at most one
 * market_value per (account_code, date); several flows per (account_code, date)
 * are allowed, on their own rows or on the valuation row.
 */
export async function* parsePnl(input: CsvInput): AsyncGenerator<ParseItem<PnlRow>> {
  const state = new FileConsistency();
  for await (const item of readRecords(input, 'pnl')) {
    if ('error' in item) {
      yield item;
      continue;
    }
    const rec = item.record;
    const { line, values } = rec;
    const errors: RowError[] = [];
    const { accountCode, entityName, date } = commonFields(rec, errors);

    let marketValue: string | null = null;
    const mvText = values.get('market_value') ?? '';
    if (mvText !== '') {
      const mv = parseMoney(mvText);
      if (mv.ok) marketValue = canonical(mv.value);
      else errors.push({ line, column: 'market_value', message: `market_value ${mv.message}` });
    }

    let cashFlow: string | null = null;
    let cashFlowGiven = false;
    const cfText = values.get('cash_flow') ?? '';
    if (cfText !== '') {
      const cf = parseMoney(cfText);
      if (cf.ok) {
        cashFlowGiven = true;
        if (cf.value.integer !== '' || cf.value.fraction !== '') cashFlow = canonical(cf.value);
      } else errors.push({ line, column: 'cash_flow', message: `cash_flow ${cf.message}` });
    }

    let flowTiming: FlowTiming | null = null;
    const timingText = (values.get('flow_timing') ?? '').toLowerCase();
    if (timingText !== '') {
      if (timingText === 'start_of_day' || timingText === 'end_of_day') {
        if (cfText === '') {
          errors.push({ line, column: 'flow_timing', message: 'flow_timing is given but cash_flow is empty' });
        } else if (cashFlow !== null) flowTiming = timingText;
      } else {
        errors.push({
          line,
          column: 'flow_timing',
          message: `flow_timing ${JSON.stringify(values.get('flow_timing'))} must be start_of_day, end_of_day or empty`,
        });
      }
    }

    let description: string | null = null;
    const descText = values.get('description') ?? '';
    if (descText !== '') {
      const problem = checkText(descText, 'description', LIMITS.descriptionLength, true);
      if (problem) errors.push({ line, column: 'description', message: problem });
      else description = descText;
    }

    if (mvText === '' && cfText === '') {
      errors.push({ line, column: null, message: 'the row has neither a market_value nor a cash_flow' });
    } else if (mvText === '' && cashFlowGiven && cashFlow === null) {
      errors.push({ line, column: 'cash_flow', message: 'the row has no market_value and its cash_flow is zero' });
    }

    if (errors.length === 0) {
      const entityProblem = state.entityProblem(accountCode, entityName);
      if (entityProblem) errors.push({ line, column: 'entity_name', message: entityProblem });
      if (marketValue !== null) {
        const earlier = state.duplicateOf(accountCode, date);
        if (earlier !== undefined) {
          errors.push({
            line,
            column: 'market_value',
            message: `second market_value for account ${accountCode} on ${date} (first on line ${earlier})`,
          });
        }
      }
    }

    if (errors.length) {
      for (const error of errors) yield { error };
      continue;
    }
    state.record(line, accountCode, entityName, marketValue !== null ? date : null);
    yield { row: { line, accountCode, entityName, date, marketValue, cashFlow, flowTiming, description } };
  }
}

// ---------------------------------------------------------------------------
// performance
// ---------------------------------------------------------------------------

/**
 * Streams a `performance` file (custodian daily returns). `return_unit` is
 * required on every row (percent | fraction | bps, case-insensitive); the return
 * is stored as a fraction string. One return per (account_code, date).
 */
export async function* parsePerformance(input: CsvInput): AsyncGenerator<ParseItem<PerformanceRow>> {
  const state = new FileConsistency();
  for await (const item of readRecords(input, 'performance')) {
    if ('error' in item) {
      yield item;
      continue;
    }
    const rec = item.record;
    const { line, values } = rec;
    const errors: RowError[] = [];
    const { accountCode, entityName, date } = commonFields(rec, errors);

    const unitText = (values.get('return_unit') ?? '').toLowerCase();
    let unit: ReturnUnit | null = null;
    if (unitText === '') errors.push({ line, column: 'return_unit', message: 'return_unit is required (percent, fraction or bps)' });
    else if (unitText === 'percent' || unitText === 'fraction' || unitText === 'bps') unit = unitText;
    else {
      errors.push({
        line,
        column: 'return_unit',
        message: `return_unit ${JSON.stringify(values.get('return_unit'))} must be percent, fraction or bps`,
      });
    }

    let returnFraction: string | null = null;
    const returnText = values.get('return') ?? '';
    if (returnText === '') errors.push({ line, column: 'return', message: 'return is required' });
    else if (unit !== null) {
      const r = normaliseReturn(returnText, unit);
      if (r.ok) returnFraction = r.value;
      else errors.push({ line, column: 'return', message: `return ${r.message}` });
    } else {
      // still report a malformed number when the unit is unusable
      const r = parsePlainDecimal(returnText);
      if (!r.ok) errors.push({ line, column: 'return', message: `return ${r.message}` });
    }

    if (errors.length === 0) {
      const entityProblem = state.entityProblem(accountCode, entityName);
      if (entityProblem) errors.push({ line, column: 'entity_name', message: entityProblem });
      const earlier = state.duplicateOf(accountCode, date);
      if (earlier !== undefined) {
        errors.push({ line, column: 'return', message: `second return for account ${accountCode} on ${date} (first on line ${earlier})` });
      }
    }

    if (errors.length || returnFraction === null) {
      for (const error of errors) yield { error };
      continue;
    }
    state.record(line, accountCode, entityName, date);
    yield { row: { line, accountCode, entityName, date, returnFraction } };
  }
}

// ---------------------------------------------------------------------------
// Content sniffing (415 decision)
// ---------------------------------------------------------------------------

export const SNIFF_BYTES = 64 * 1024;

const SIGNATURES: ReadonlyArray<{ bytes: ReadonlyArray<number | null>; name: string; printable?: boolean }> = [
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], name: 'a PDF document' }, // %PDF-
  { bytes: [0x50, 0x4b, 0x03, 0x04], name: 'a ZIP archive (xlsx?)' },
  { bytes: [0x50, 0x4b, 0x05, 0x06], name: 'a ZIP archive (xlsx?)' },
  { bytes: [0x50, 0x4b, 0x07, 0x08], name: 'a ZIP archive (xlsx?)' },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], name: 'an OLE2 compound document (legacy .xls/.doc?)' },
  { bytes: [0x1f, 0x8b], name: 'a GZIP archive' },
  { bytes: [0x42, 0x5a, 0x68], name: 'a BZIP2 archive', printable: true }, // BZh
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], name: 'an XZ archive' },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], name: 'a Zstandard archive' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], name: 'a 7-Zip archive' },
  { bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], name: 'a RAR archive' },
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], name: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], name: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], name: 'a GIF image', printable: true }, // GIF8
  { bytes: [0x49, 0x49, 0x2a, 0x00], name: 'a TIFF image' },
  { bytes: [0x4d, 0x4d, 0x00, 0x2a], name: 'a TIFF image' },
  { bytes: [0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50], name: 'a WebP image' },
  { bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x20, 0x33, 0x00], name: 'an SQLite database' },
  { bytes: [0x50, 0x41, 0x52, 0x31], name: 'a Parquet file', printable: true }, // PAR1
  { bytes: [0x7f, 0x45, 0x4c, 0x46], name: 'an ELF executable' },
  { bytes: [0x4d, 0x5a], name: 'a Windows executable', printable: true }, // MZ
  { bytes: [0x00, 0x00, 0xfe, 0xff], name: 'UTF-32 text (save the file as UTF-8)' },
  { bytes: [0xff, 0xfe, 0x00, 0x00], name: 'UTF-32 text (save the file as UTF-8)' },
  { bytes: [0xff, 0xfe], name: 'UTF-16 text (save the file as UTF-8)' },
  { bytes: [0xfe, 0xff], name: 'UTF-16 text (save the file as UTF-8)' },
];

function looksBinary(buf: Buffer): boolean {
  return buf.includes(0) || !isUtf8(trimIncompleteUtf8Tail(buf));
}

function matchesSignature(buf: Buffer, bytes: ReadonlyArray<number | null>): boolean {
  if (buf.length < bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b !== null && buf[i] !== b) return false;
  }
  return true;
}

/** Drops an incomplete UTF-8 sequence cut off at the end of the sample. */
function trimIncompleteUtf8Tail(buf: Buffer): Buffer {
  const n = buf.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = buf[n - back];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return needed > back ? buf.subarray(0, n - back) : buf;
  }
  return buf;
}

/**
 * Decides from the first bytes of an upload (up to 64 KiB are looked at) whether
 * it can be a CSV file: UTF-8 text (optional BOM), no NUL bytes or other binary
 * control characters, not a known binary format, and a first non-blank line
 * that looks like a comma-separated header. The reason names what the content
 * looks like instead.
 */
export function sniffCsv(firstBytes: Buffer): { ok: true } | { ok: false; reason: string } {
  const buf = firstBytes.subarray(0, SNIFF_BYTES);
  if (buf.length === 0) return { ok: false, reason: 'the file is empty' };

  for (const sig of SIGNATURES) {
    if (!matchesSignature(buf, sig.bytes)) continue;
    // short printable signatures ("MZ", "BZh", "GIF8", "PAR1") are plausible starts of a
    // text line: only believe them when the content is binary as well
    if (sig.printable && !looksBinary(buf)) continue;
    return { ok: false, reason: `looks like ${sig.name}, not a CSV text file` };
  }

  if (buf.includes(0)) {
    // UTF-16 without BOM: NULs in every other byte of ASCII text
    let evenNul = 0;
    let oddNul = 0;
    const sample = Math.min(buf.length, 512);
    for (let i = 0; i < sample; i++) if (buf[i] === 0) i % 2 === 0 ? evenNul++ : oddNul++;
    if (Math.max(evenNul, oddNul) > sample / 4 && Math.min(evenNul, oddNul) < sample / 50) {
      return { ok: false, reason: 'looks like UTF-16 text (save the file as UTF-8)' };
    }
    return { ok: false, reason: 'contains NUL bytes: looks like a binary file, not CSV text' };
  }

  const hasBom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  const body = trimIncompleteUtf8Tail(hasBom ? buf.subarray(3) : buf);
  if (!isUtf8(body)) {
    return { ok: false, reason: 'is not valid UTF-8 text (Latin-1 / Windows-1252? save the file as UTF-8)' };
  }
  const text = body.toString('utf8');
  const control = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/.exec(text);
  if (control) {
    return {
      ok: false,
      reason: `contains the control character U+${control[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}: looks like a binary file, not CSV text`,
    };
  }

  const withoutBlankLines = text.replace(/^(?:[ \t]*(?:\r\n|\r|\n))+/, '');
  const lineEnd = withoutBlankLines.search(/[\r\n]/);
  if (lineEnd < 0 && buf.length >= SNIFF_BYTES) {
    return { ok: false, reason: `the first line is longer than ${SNIFF_BYTES} bytes: not a CSV header` };
  }
  const firstLine = (lineEnd < 0 ? withoutBlankLines : withoutBlankLines.slice(0, lineEnd)).trim();
  if (firstLine === '') return { ok: false, reason: 'the file has no header line (only blank content)' };
  if (/^(<\?xml|<!doctype|<html|<)/i.test(firstLine)) return { ok: false, reason: 'looks like an HTML/XML document, not CSV' };
  if (/^[{[]/.test(firstLine)) return { ok: false, reason: 'looks like JSON, not CSV' };
  if (/^%PDF/.test(firstLine)) return { ok: false, reason: 'looks like a PDF document, not a CSV text file' };
  if (!firstLine.includes(',')) {
    if (firstLine.includes(';'))
      return { ok: false, reason: 'the first line has no commas: looks semicolon-separated (only comma-separated files are accepted)' };
    if (firstLine.includes('\t')) return { ok: false, reason: 'the first line has no commas: looks tab-separated (only comma-separated files are accepted)' };
    return { ok: false, reason: 'the first line has no commas: does not look like a CSV header' };
  }
  return { ok: true };
}
