/** The `benchmark` file: benchmark index levels of the organization, per benchmark and day. */
import { LIMITS } from './columns.ts';
import { parsePositive, type DigitLimits } from './numbers.ts';
import type { RawRecord } from './records.ts';
import { required, valueOf } from './row-loop.ts';
import { parseSeriesRows, type SeriesFormat } from './series-loop.ts';
import type { BenchmarkRow, CsvInput, ParseItem, RowError } from './types.ts';
import { checkDate, checkText } from './values.ts';

const LEVEL: DigitLimits = {
  integerDigits: LIMITS.benchmarkLevelIntegerDigits,
  fractionDigits: LIMITS.benchmarkLevelFractionDigits,
  noun: 'levels',
};

const BENCHMARK: SeriesFormat<BenchmarkRow> = {
  type: 'benchmark',
  readRow: readBenchmarkRow,
  seriesOf: (row) => ({ key: row.benchmark, label: `benchmark ${JSON.stringify(row.benchmark)}` }),
  slotColumn: 'level',
};

/**
 * Streams a `benchmark` file: `date,benchmark,level`, the index's level at the close of date.
 * benchmark is the series' name (trimmed, 1..100 characters, no control characters; names are
 * compared exactly, case included); level is a plain decimal greater than zero with at most 16
 * integer and 8 fraction digits (DECIMAL(24,8)), never rounded; at most one level per
 * (benchmark, date) in a file. Throws FileFormatError when the file as a whole is unusable.
 */
export function parseBenchmarkLevels(input: CsvInput): AsyncGenerator<ParseItem<BenchmarkRow>> {
  return parseSeriesRows(input, BENCHMARK);
}

function readBenchmarkRow(record: RawRecord, errors: RowError[]): BenchmarkRow | null {
  const { line } = record;
  const before = errors.length;
  const date = required(record, 'date', checkDate, errors);
  const benchmark = required(record, 'benchmark', (text) => checkText(text, 'benchmark', LIMITS.benchmarkNameLength), errors);
  const level = readLevel(record, errors);
  return errors.length > before || level === null ? null : { line, date, benchmark, level };
}

function readLevel(record: RawRecord, errors: RowError[]): string | null {
  const text = valueOf(record, 'level');
  if (text === '') {
    errors.push({ line: record.line, column: 'level', message: 'level is required' });
    return null;
  }
  const parsed = parsePositive(text, LEVEL);
  if (parsed.ok) return parsed.value;
  errors.push({ line: record.line, column: 'level', message: `level ${parsed.message}` });
  return null;
}
