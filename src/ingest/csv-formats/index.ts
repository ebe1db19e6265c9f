/**
 * The uploaded CSV formats (FILE_TYPES: `pnl`, `performance`, `fx`, `benchmark`): streaming
 * parsers with row-level validation, file type detection from the header, and a content sniff for
 * the upload's 415 decision. Each module states its part of the rules:
 *
 * - records.ts: the text (UTF-8, line endings, quoting, blank lines, field counts) and the
 *   physical line numbers errors name;
 * - header.ts: the header line (names, required, unknown and duplicate columns) and detectFileType;
 * - row-loop.ts: the loop of the account formats (key columns, then the format's own, then the
 *   file's consistency: consistency.ts); series-loop.ts: the loop of the series formats (one row
 *   per series and date);
 * - pnl.ts and performance.ts: each account format's own columns; fx.ts and benchmark-levels.ts:
 *   the series formats;
 * - numbers.ts and values.ts: numbers (plain decimals, digit limits that follow the database
 *   columns, never rounded), dates, text and currency codes; columns.ts: the column sets and the
 *   limits;
 * - sniff.ts: whether an upload can be CSV text at all.
 *
 * A problem with the file as a whole (bad header, broken quoting, empty file) throws
 * FileFormatError; a problem with a row is yielded as a RowError and the row is left out.
 */
export { COLUMN_SETS } from './columns.ts';
export { detectFileType, withArticle } from './header.ts';
export { normaliseReturn } from './numbers.ts';
export { parseBenchmarkLevels } from './benchmark-levels.ts';
export { parseFx } from './fx.ts';
export { parsePerformance } from './performance.ts';
export { parsePnl } from './pnl.ts';
export { SNIFF_BYTES, sniffCsv } from './sniff.ts';
export {
  FILE_TYPES,
  FileFormatError,
  type BenchmarkRow,
  type FileType,
  type FxRow,
  type ParseItem,
  type PerformanceRow,
  type PnlRow,
  type RowError,
} from './types.ts';
