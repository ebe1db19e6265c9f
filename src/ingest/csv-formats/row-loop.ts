/**
 * The row loop of the account formats (pnl, performance): each record of the file (records.ts)
 * gets its key columns (account_code, entity_name, date) checked here and its own columns read by
 * its format; a row whose fields are all valid is then checked against the rest of the file
 * (consistency.ts). The series formats (fx, benchmark) have a loop of their own: series-loop.ts.
 * Yields `{ row }` for each valid row and `{ error }` for each problem of an invalid row (a row can
 * produce several errors and then yields no row).
 */
import { LIMITS } from './columns.ts';
import { FileConsistency } from './consistency.ts';
import { readRecords, type RawRecord } from './records.ts';
import type { CsvInput, FileType, ParseItem, RowError, RowKey } from './types.ts';
import { checkDate, checkText } from './values.ts';

/** What one file type adds to the shared loop. */
export interface RowFormat<Own> {
  type: FileType;
  /** Reads the type's own columns, pushing their errors; null when they give no row at all. */
  readOwn(record: RawRecord, errors: RowError[]): Own | null;
  /** The column an (account, date) slot is about: a second row in a taken slot is an error on it. */
  slotColumn: string;
  /** Whether a valid row takes its (account, date) slot. */
  takesSlot(own: Own): boolean;
  /** The account's currency a valid row gives (null: none); every row of an account that gives one must give the same. */
  currencyOf?(own: Own): string | null;
}

export async function* parseRows<Own>(input: CsvInput, format: RowFormat<Own>): AsyncGenerator<ParseItem<RowKey & Own>> {
  const file = new FileConsistency();
  for await (const item of readRecords(input, format.type)) {
    if ('error' in item) {
      yield item;
      continue;
    }
    const errors: RowError[] = [];
    const key = readKey(item.record, errors);
    const own = format.readOwn(item.record, errors);
    if (errors.length === 0 && own !== null) errors.push(...consistencyErrors(file, format, key, own));
    if (errors.length > 0 || own === null) {
      for (const error of errors) yield { error };
      continue;
    }
    file.record(key.line, key.accountCode, key.entityName, format.takesSlot(own) ? key.date : null, format.currencyOf?.(own) ?? null);
    yield { row: { ...key, ...own } };
  }
}

/** A column's trimmed value; '' when empty or not in the header (an optional column). */
export function valueOf(record: RawRecord, column: string): string {
  return record.values.get(column) ?? '';
}

/** account_code (1..64 characters), entity_name (1..200) and date; pushes their errors. */
function readKey(record: RawRecord, errors: RowError[]): RowKey {
  return {
    line: record.line,
    accountCode: required(record, 'account_code', (text) => checkText(text, 'account_code', LIMITS.accountCodeLength), errors),
    entityName: required(record, 'entity_name', (text) => checkText(text, 'entity_name', LIMITS.entityNameLength), errors),
    date: required(record, 'date', checkDate, errors),
  };
}

/** A required column's value; pushes its error: empty, or the problem `check` finds. */
export function required(record: RawRecord, column: string, check: (text: string) => string | null, errors: RowError[]): string {
  const text = valueOf(record, column);
  const problem = text === '' ? `${column} is required` : check(text);
  if (problem) errors.push({ line: record.line, column, message: problem });
  return text;
}

/** A valid row against the rows before it: its entity name, its currency, and a second row in its (account, date) slot. */
function consistencyErrors<Own>(file: FileConsistency, format: RowFormat<Own>, key: RowKey, own: Own): RowError[] {
  const errors: RowError[] = [];
  const entityProblem = file.entityProblem(key.accountCode, key.entityName);
  if (entityProblem) errors.push({ line: key.line, column: 'entity_name', message: entityProblem });
  const currencyProblem = file.currencyProblem(key.accountCode, format.currencyOf?.(own) ?? null);
  if (currencyProblem) errors.push({ line: key.line, column: 'currency', message: currencyProblem });
  const earlier = format.takesSlot(own) ? file.duplicateOf(key.accountCode, key.date) : undefined;
  if (earlier !== undefined) {
    const column = format.slotColumn;
    errors.push({ line: key.line, column, message: `second ${column} for account ${key.accountCode} on ${key.date} (first on line ${earlier})` });
  }
  return errors;
}
