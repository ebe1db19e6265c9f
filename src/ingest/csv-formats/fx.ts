/** The `fx` file: exchange rates of the organization, per currency pair and day. */
import { LIMITS } from './columns.ts';
import { parsePositive, type DigitLimits } from './numbers.ts';
import type { RawRecord } from './records.ts';
import { required, valueOf } from './row-loop.ts';
import { parseSeriesRows, type SeriesFormat } from './series-loop.ts';
import type { CsvInput, FxRow, ParseItem, RowError } from './types.ts';
import { checkCurrency, checkDate } from './values.ts';

const RATE: DigitLimits = { integerDigits: LIMITS.fxRateIntegerDigits, fractionDigits: LIMITS.fxRateFractionDigits, noun: 'rates' };

const FX: SeriesFormat<FxRow> = {
  type: 'fx',
  readRow: readFxRow,
  seriesOf: (row) => ({ key: `${row.base}/${row.quote}`, label: `${row.base}/${row.quote}` }),
  slotColumn: 'rate',
};

/**
 * Streams an `fx` file. A row `date,base,quote,rate` means 1 unit of base = rate units of quote
 * at the close of date (EUR,USD,1.085: one euro costs 1.085 dollars). base and quote are ISO 4217
 * codes (three letters, case-insensitive, yielded upper case) and differ; rate is a plain decimal
 * greater than zero with at most 12 integer and 12 fraction digits (DECIMAL(24,12)), never
 * rounded; at most one rate per (date, base, quote) in a file (the inverse pair is another
 * series). Throws FileFormatError when the file as a whole is unusable.
 */
export function parseFx(input: CsvInput): AsyncGenerator<ParseItem<FxRow>> {
  return parseSeriesRows(input, FX);
}

function readFxRow(record: RawRecord, errors: RowError[]): FxRow | null {
  const { line } = record;
  const before = errors.length;
  const date = required(record, 'date', checkDate, errors);
  const base = required(record, 'base', (text) => checkCurrency(text, 'base'), errors).toUpperCase();
  const quote = required(record, 'quote', (text) => checkCurrency(text, 'quote'), errors).toUpperCase();
  const currenciesValid = !errors.slice(before).some((e) => e.column === 'base' || e.column === 'quote');
  if (currenciesValid && base === quote) {
    errors.push({ line, column: 'quote', message: `quote ${quote} is the same currency as base: a rate needs two different currencies` });
  }
  const rate = readRate(record, errors);
  return errors.length > before || rate === null ? null : { line, date, base, quote, rate };
}

function readRate(record: RawRecord, errors: RowError[]): string | null {
  const text = valueOf(record, 'rate');
  if (text === '') {
    errors.push({ line: record.line, column: 'rate', message: 'rate is required' });
    return null;
  }
  const parsed = parsePositive(text, RATE);
  if (parsed.ok) return parsed.value;
  errors.push({ line: record.line, column: 'rate', message: `rate ${parsed.message}` });
  return null;
}
