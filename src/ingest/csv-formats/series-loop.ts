/**
 * The row loop of the series formats (fx, benchmark): rows keyed by a series (a currency pair, a
 * benchmark's name) and a date instead of an account. Each record of the file (records.ts) is read
 * by its format; a row whose fields are all valid then takes its (series, date) slot, and a second
 * row in a taken slot is an error naming the first one's line. Yields `{ row }` for each valid row
 * and `{ error }` for each problem of an invalid row (a row can produce several errors and then
 * yields no row), with physical line numbers like the account formats (row-loop.ts).
 */
import { dateKey } from './consistency.ts';
import { readRecords, type RawRecord } from './records.ts';
import type { CsvInput, FileType, ParseItem, RowError } from './types.ts';

/** What one series file type reads. */
export interface SeriesFormat<Row extends { line: number; date: string }> {
  type: FileType;
  /** Reads a record's columns, pushing their errors; null when they give no row. */
  readRow(record: RawRecord, errors: RowError[]): Row | null;
  /** The row's series: `key` tells series apart, `label` names it in a message (`EUR/USD`). */
  seriesOf(row: Row): { key: string; label: string };
  /** The column a second row in a taken (series, date) slot is reported on. */
  slotColumn: string;
}

export async function* parseSeriesRows<Row extends { line: number; date: string }>(input: CsvInput, format: SeriesFormat<Row>): AsyncGenerator<ParseItem<Row>> {
  /** series key -> (yyyymmdd -> line of the row that took the slot) */
  const taken = new Map<string, Map<number, number>>();
  for await (const item of readRecords(input, format.type)) {
    if ('error' in item) {
      yield item;
      continue;
    }
    const errors: RowError[] = [];
    const row = format.readRow(item.record, errors);
    if (errors.length > 0 || row === null) {
      for (const error of errors) yield { error };
      continue;
    }
    const series = format.seriesOf(row);
    let dates = taken.get(series.key);
    if (!dates) taken.set(series.key, (dates = new Map()));
    const day = dateKey(row.date);
    const earlier = dates.get(day);
    if (earlier !== undefined) {
      const column = format.slotColumn;
      yield { error: { line: row.line, column, message: `second ${column} for ${series.label} on ${row.date} (first on line ${earlier})` } };
      continue;
    }
    dates.set(day, row.line);
    yield { row };
  }
}
