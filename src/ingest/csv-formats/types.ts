/** What the CSV parsers read and yield (index.ts states the rules of the formats). */
import type { FlowType } from '../../returns/analytics/fees.ts';
import type { FlowTiming } from '../../returns/dietz.ts';

/** The upload types, stated once: the GraphQL enum, the REST `file_type` values and the column sets follow it. */
export const FILE_TYPES = ['pnl', 'performance', 'fx', 'benchmark'] as const;
export type FileType = (typeof FILE_TYPES)[number];
export type ReturnUnit = 'percent' | 'fraction' | 'bps';

/** The columns every row of the account formats (pnl, performance) has. */
export interface RowKey {
  /** physical line where the record starts (header = line 1) */
  line: number;
  accountCode: string;
  entityName: string;
  /** YYYY-MM-DD */
  date: string;
}

export type PnlRow = RowKey & {
  /** canonical decimal string (e.g. "1250000.5"), null when the row only carries a flow */
  marketValue: string | null;
  /** canonical decimal string, positive = into the portfolio; null = no flow (empty or zero) */
  cashFlow: string | null;
  /** explicit timing; null = the default convention (set only when cashFlow is not null) */
  flowTiming: FlowTiming | null;
  /** the flow's type (set only when cashFlow is not null): the flow_type given, or 'external' when it is empty */
  flowType: FlowType | null;
  /** the account's currency as given on this row, ISO 4217 upper case; null when empty (keep the entity's, USD for a new one) */
  currency: string | null;
  description: string | null;
};

export type PerformanceRow = RowKey & {
  /** the custodian's return as a fraction, canonical decimal string (1.23 percent -> "0.0123") */
  returnFraction: string;
};

/** An exchange rate: 1 unit of `base` = `rate` units of `quote` at the close of `date`. */
export type FxRow = {
  line: number;
  /** YYYY-MM-DD */
  date: string;
  /** ISO 4217, upper case */
  base: string;
  /** ISO 4217, upper case, not `base` */
  quote: string;
  /** canonical positive decimal string */
  rate: string;
};

/** A benchmark index's level at the close of `date`. */
export type BenchmarkRow = {
  line: number;
  /** YYYY-MM-DD */
  date: string;
  /** the series' name, as given (trimmed) */
  benchmark: string;
  /** canonical positive decimal string */
  level: string;
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
