/** What the CSV parsers read and yield (index.ts states the rules of both formats). */
import type { FlowTiming } from '../../returns/dietz.ts';

/** The upload types, stated once: the GraphQL enum, the REST `file_type` values and the column sets follow it. */
export const FILE_TYPES = ['pnl', 'performance', 'fx', 'benchmark'] as const;
export type FileType = (typeof FILE_TYPES)[number];
export type ReturnUnit = 'percent' | 'fraction' | 'bps';

/** The columns every row of both formats has. */
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
  description: string | null;
};

export type PerformanceRow = RowKey & {
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
