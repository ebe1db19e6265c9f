/** The `pnl` file: valuations and cash flows per account and day. */
import { LIMITS } from './columns.ts';
import { canonical, isZero, parseMoney, type PlainNumber } from './numbers.ts';
import type { RawRecord } from './records.ts';
import { parseRows, valueOf, type RowFormat } from './row-loop.ts';
import type { FlowType } from '../../returns/analytics/fees.ts';
import type { FlowTiming } from '../../returns/dietz.ts';
import type { CsvInput, ParseItem, PnlRow, RowError, RowKey } from './types.ts';
import { checkCurrency, checkText } from './values.ts';

type PnlValues = Omit<PnlRow, keyof RowKey>;

const PNL: RowFormat<PnlValues> = {
  type: 'pnl',
  readOwn: readPnlValues,
  // several flows per (account_code, date) are allowed: only a valuation takes the slot
  slotColumn: 'market_value',
  takesSlot: (values) => values.marketValue !== null,
  currencyOf: (values) => values.currency,
};

/**
 * Streams a `pnl` file. Yields `{ row }` for each valid data row and `{ error }`
 * for each problem of an invalid row (a row can produce several errors and then
 * yields no row). Throws FileFormatError when the file as a whole is unusable.
 *
 * Row rules: market_value and cash_flow may each be empty but not both; a
 * cash_flow of zero counts as no flow (and a row with an empty market_value and
 * a zero cash_flow is an error); flow_timing is start_of_day | end_of_day
 * (case-insensitive) or empty for the default convention, an error when
 * cash_flow is empty and ignored when cash_flow is zero; at most one
 * market_value per (account_code, date); several flows per (account_code, date)
 * are allowed, on their own rows or on the valuation row. flow_type is external |
 * fee | income (case-insensitive), empty for external, with the same rules as
 * flow_timing (an error with an empty cash_flow, ignored with a zero one).
 * currency is an ISO 4217 code (three letters, case-insensitive, yielded upper
 * case) or empty (the entity's currency is kept; USD for a new entity); the rows
 * of one account that give a currency give the same one. (Whether it agrees with
 * an entity already stored is the ingest's check.)
 */
export function parsePnl(input: CsvInput): AsyncGenerator<ParseItem<PnlRow>> {
  return parseRows(input, PNL);
}

function readPnlValues(record: RawRecord, errors: RowError[]): PnlValues {
  const { line } = record;
  const market = readMoney(record, 'market_value', errors);
  const flow = readMoney(record, 'cash_flow', errors);
  const cashFlow = flow !== null && !isZero(flow) ? canonical(flow) : null;
  const flowTiming = readFlowTiming(record, cashFlow, errors);
  const flowType = readFlowType(record, cashFlow, errors);
  const currency = readCurrency(record, errors);
  const description = readDescription(record, errors);

  const marketEmpty = valueOf(record, 'market_value') === '';
  if (marketEmpty && valueOf(record, 'cash_flow') === '') {
    errors.push({ line, column: null, message: 'the row has neither a market_value nor a cash_flow' });
  } else if (marketEmpty && flow !== null && cashFlow === null) {
    errors.push({ line, column: 'cash_flow', message: 'the row has no market_value and its cash_flow is zero' });
  }
  return { marketValue: market === null ? null : canonical(market), cashFlow, flowTiming, flowType, currency, description };
}

/** A money column's number; null when it is empty or invalid (its error pushed). */
function readMoney(record: RawRecord, column: 'market_value' | 'cash_flow', errors: RowError[]): PlainNumber | null {
  const text = valueOf(record, column);
  if (text === '') return null;
  const parsed = parseMoney(text);
  if (parsed.ok) return parsed.value;
  errors.push({ line: record.line, column, message: `${column} ${parsed.message}` });
  return null;
}

/** flow_timing of a row with a (non-zero) flow; given without a cash_flow it is an error, with a zero one ignored. */
function readFlowTiming(record: RawRecord, cashFlow: string | null, errors: RowError[]): FlowTiming | null {
  const raw = valueOf(record, 'flow_timing');
  const timing = raw.toLowerCase();
  if (timing === '') return null;
  if (timing !== 'start_of_day' && timing !== 'end_of_day') {
    errors.push({ line: record.line, column: 'flow_timing', message: `flow_timing ${JSON.stringify(raw)} must be start_of_day, end_of_day or empty` });
    return null;
  }
  if (valueOf(record, 'cash_flow') === '') {
    errors.push({ line: record.line, column: 'flow_timing', message: 'flow_timing is given but cash_flow is empty' });
    return null;
  }
  return cashFlow === null ? null : timing;
}

/** flow_type of a row with a (non-zero) flow, 'external' when empty; given without a cash_flow it is an error, with a zero one ignored. */
function readFlowType(record: RawRecord, cashFlow: string | null, errors: RowError[]): FlowType | null {
  const raw = valueOf(record, 'flow_type');
  const type = raw.toLowerCase();
  if (type !== '' && type !== 'external' && type !== 'fee' && type !== 'income') {
    errors.push({ line: record.line, column: 'flow_type', message: `flow_type ${JSON.stringify(raw)} must be external, fee, income or empty` });
    return null;
  }
  if (type !== '' && valueOf(record, 'cash_flow') === '') {
    errors.push({ line: record.line, column: 'flow_type', message: 'flow_type is given but cash_flow is empty' });
    return null;
  }
  if (cashFlow === null) return null;
  return type === '' ? 'external' : type;
}

/** The account's currency, upper case; null when empty. */
function readCurrency(record: RawRecord, errors: RowError[]): string | null {
  const text = valueOf(record, 'currency');
  if (text === '') return null;
  const problem = checkCurrency(text, 'currency');
  if (!problem) return text.toUpperCase();
  errors.push({ line: record.line, column: 'currency', message: problem });
  return null;
}

function readDescription(record: RawRecord, errors: RowError[]): string | null {
  const text = valueOf(record, 'description');
  if (text === '') return null;
  const problem = checkText(text, 'description', LIMITS.descriptionLength, true);
  if (!problem) return text;
  errors.push({ line: record.line, column: 'description', message: problem });
  return null;
}
