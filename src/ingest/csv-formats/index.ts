/**
 * The two uploaded CSV formats (`pnl` and `performance`): streaming parsers with row-level
 * validation, file type detection from the header, and a content sniff for the upload's 415
 * decision. Each module states its part of the rules:
 *
 * - records.ts: the text (UTF-8, line endings, quoting, blank lines, field counts) and the
 *   physical line numbers errors name;
 * - header.ts: the header line (names, required, unknown and duplicate columns) and detectFileType;
 * - row-loop.ts: the loop both formats share (key columns, then the format's own, then the file's
 *   consistency: consistency.ts);
 * - pnl.ts and performance.ts: each format's own columns;
 * - numbers.ts and values.ts: numbers (plain decimals, digit limits that follow the database
 *   columns, never rounded), dates and text; columns.ts: the column sets and the limits;
 * - sniff.ts: whether an upload can be CSV text at all.
 *
 * A problem with the file as a whole (bad header, broken quoting, empty file) throws
 * FileFormatError; a problem with a row is yielded as a RowError and the row is left out.
 */
export { COLUMN_SETS, PERFORMANCE_COLUMNS, PNL_COLUMNS } from './columns.ts';
export { detectFileType } from './header.ts';
export { normaliseReturn } from './numbers.ts';
export { parsePerformance } from './performance.ts';
export { parsePnl } from './pnl.ts';
export { SNIFF_BYTES, sniffCsv } from './sniff.ts';
export { FILE_TYPES, FileFormatError, type FileType, type ParseItem, type PerformanceRow, type PnlRow, type RowError } from './types.ts';
