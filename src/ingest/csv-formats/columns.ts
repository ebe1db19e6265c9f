/** The columns of each file type (header names, lower case) and the limits on their values. */
import type { FileType } from './types.ts';

export const PNL_COLUMNS = {
  required: ['account_code', 'entity_name', 'date', 'market_value', 'cash_flow'],
  optional: ['flow_timing', 'flow_type', 'currency', 'description'],
} as const;

export const PERFORMANCE_COLUMNS = {
  required: ['account_code', 'entity_name', 'date', 'return', 'return_unit'],
  optional: [],
} as const;

export const FX_COLUMNS = {
  required: ['date', 'base', 'quote', 'rate'],
  optional: [],
} as const;

export const BENCHMARK_COLUMNS = {
  required: ['date', 'benchmark', 'level'],
  optional: [],
} as const;

export interface ColumnSet {
  readonly required: readonly string[];
  readonly optional: readonly string[];
}

export const COLUMN_SETS: Record<FileType, ColumnSet> = { pnl: PNL_COLUMNS, performance: PERFORMANCE_COLUMNS, fx: FX_COLUMNS, benchmark: BENCHMARK_COLUMNS };

/** Value limits (index.ts says why: they follow the database columns). */
export const LIMITS = {
  moneyIntegerDigits: 16,
  moneyFractionDigits: 4,
  returnIntegerDigits: 8,
  returnFractionDigits: 12,
  accountCodeLength: 64,
  entityNameLength: 200,
  descriptionLength: 1000,
  /** fx rate: DECIMAL(24,12) */
  fxRateIntegerDigits: 12,
  fxRateFractionDigits: 12,
  /** benchmark level: DECIMAL(24,8) */
  benchmarkLevelIntegerDigits: 16,
  benchmarkLevelFractionDigits: 8,
  benchmarkNameLength: 100,
  /** longest accepted raw number text (guards the digit counting against huge strings) */
  numberTextLength: 64,
  /** one CSV record may not exceed this many characters (an unbalanced quote would otherwise buffer the file) */
  maxRecordChars: 65_536,
  minYear: 1900,
  maxYear: 9999,
} as const;
