/** The `performance` file: the custodian's daily returns per account. */
import { normaliseReturn, parsePlainDecimal } from './numbers.ts';
import type { RawRecord } from './records.ts';
import { parseRows, valueOf, type RowFormat } from './row-loop.ts';
import type { CsvInput, ParseItem, PerformanceRow, ReturnUnit, RowError, RowKey } from './types.ts';

type PerformanceValues = Omit<PerformanceRow, keyof RowKey>;

const PERFORMANCE: RowFormat<PerformanceValues> = {
  type: 'performance',
  readOwn: readPerformanceValues,
  slotColumn: 'return',
  takesSlot: () => true,
};

/**
 * Streams a `performance` file (custodian daily returns). `return_unit` is
 * required on every row (percent | fraction | bps, case-insensitive); the return
 * is stored as a fraction string. One return per (account_code, date).
 */
export function parsePerformance(input: CsvInput): AsyncGenerator<ParseItem<PerformanceRow>> {
  return parseRows(input, PERFORMANCE);
}

function readPerformanceValues(record: RawRecord, errors: RowError[]): PerformanceValues | null {
  const { line } = record;
  const unit = readUnit(record, errors);
  const text = valueOf(record, 'return');
  if (text === '') {
    errors.push({ line, column: 'return', message: 'return is required' });
    return null;
  }
  if (unit === null) {
    // still report a malformed number when the unit is unusable
    const parsed = parsePlainDecimal(text);
    if (!parsed.ok) errors.push({ line, column: 'return', message: `return ${parsed.message}` });
    return null;
  }
  const fraction = normaliseReturn(text, unit);
  if (fraction.ok) return { returnFraction: fraction.value };
  errors.push({ line, column: 'return', message: `return ${fraction.message}` });
  return null;
}

function readUnit(record: RawRecord, errors: RowError[]): ReturnUnit | null {
  const raw = valueOf(record, 'return_unit');
  const unit = raw.toLowerCase();
  if (unit === 'percent' || unit === 'fraction' || unit === 'bps') return unit;
  const message = unit === '' ? 'return_unit is required (percent, fraction or bps)' : `return_unit ${JSON.stringify(raw)} must be percent, fraction or bps`;
  errors.push({ line: record.line, column: 'return_unit', message });
  return null;
}
