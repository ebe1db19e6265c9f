/**
 * Gross and net of fees.
 *
 * A flow has a flowType: 'external' (the default: money the client moves in or out), 'fee' or
 * 'income'. Amounts keep dietz.ts's sign: money leaving the portfolio is negative, so a fee paid
 * is negative (a rebate positive) and fees paid F = -(sum of the fee amounts).
 *
 * - Fees and income are NOT external flows: they happen inside the portfolio and the valuations
 *   already show them (the fee lowered EMV, the income raised it). Only external flows enter the
 *   Modified Dietz numerator and denominator.
 * - Net of fees: R_net = (EMV - BMV - sum CF) / D, D = BMV + sum w_i CF_i (external flows only),
 *   i.e. modifiedDietz over the external flows.
 * - Gross of fees: the fees added back to the end value, as if they had not been paid:
 *       R_gross = (EMV + F - BMV - sum CF) / D    with the SAME D.
 *   GIPS defines the gross-of-fees return as the return before the deduction of management fees;
 *   adding them back to EMV (rather than treating them as an external flow with a day weight) keeps
 *   the capital at work identical, so gross and net differ by exactly the fee over the capital:
 *       R_gross - R_net = F / D      (feeReturn; exact before the 12 dp rounding of each output)
 *   With daily valuations a fee's weight would be 0 or 1 day anyway, which is all this gives up.
 * - Income: neither gross nor net changes (it stays in the portfolio); it is reported as a sum.
 */
import type { Decimal } from 'decimal.js';
import { type CashFlow, dayNumber, modifiedDietz, type SubPeriodResult, type Valuation } from '../dietz.ts';
import { Dec, formatMoney, toDecimal } from '../decimal.ts';

/** A cash flow's type, as stored (CashTransaction.flowType) and uploaded (the pnl file's flow_type). */
export const FLOW_TYPES = ['external', 'fee', 'income'] as const;
export type FlowType = (typeof FLOW_TYPES)[number];

export interface TypedCashFlow extends CashFlow {
  /** default 'external' */
  flowType?: FlowType;
}

export interface FeeSubPeriodInput {
  beginDate: string;
  endDate: string;
  beginValue: Decimal.Value;
  /** after fees were paid and income received */
  endValue: Decimal.Value;
  /** dated in (beginDate, endDate] */
  flows: readonly TypedCashFlow[];
}

export interface FeeSubPeriodResult {
  startDate: string;
  endDate: string;
  /** F: fees paid in the sub-period (positive = paid) */
  fees: string;
  /** income received in the sub-period */
  income: string;
  /** sum of the external flows */
  netFlow: string;
  /** D, the same for gross and net */
  denominator: string;
  netReturn: string | null;
  grossReturn: string | null;
  /** F / D: gross minus net before rounding */
  feeReturn: string | null;
  nullReason: string | null;
}

export interface FeeSeriesResult {
  periods: FeeSubPeriodResult[];
  /** flows dated on/before the first valuation date or after the last one */
  unassignedFlows: TypedCashFlow[];
}

function flowTypeOf(flow: TypedCashFlow, index: number): FlowType {
  const type = flow.flowType ?? 'external';
  if (type !== 'external' && type !== 'fee' && type !== 'income') {
    throw new RangeError(`flows[${index}].flowType must be external, fee or income, got ${String(type)}`);
  }
  return type;
}

function sumOf(flows: readonly TypedCashFlow[], label: string): Decimal {
  return flows.reduce((sum, flow, index) => sum.plus(toDecimal(flow.amount, `${label}[${index}].amount`)), new Dec(0));
}

/** Fees and income are not passed to modifiedDietz, which checks the external flows' dates; these are checked here the same way. */
function checkInside(flows: readonly TypedCashFlow[], input: FeeSubPeriodInput): void {
  const [begin, end] = [dayNumber(input.beginDate, 'beginDate'), dayNumber(input.endDate, 'endDate')];
  flows.forEach((flow, index) => {
    const day = dayNumber(flow.date, `flows[${index}].date`);
    if (day <= begin || day > end) throw new RangeError(`flows[${index}] dated ${flow.date} is outside the sub-period (begin, end]`);
  });
}

/** Net, gross and the fee's share of one sub-period (see the module comment). Throws RangeError on malformed input, like modifiedDietz. */
export function feeSubPeriod(input: FeeSubPeriodInput): FeeSubPeriodResult {
  const types = input.flows.map(flowTypeOf);
  checkInside(input.flows, input);
  const external = input.flows.filter((_, index) => types[index] === 'external');
  const fees = sumOf(
    input.flows.filter((_, index) => types[index] === 'fee'),
    'fees',
  ).negated();
  const income = sumOf(
    input.flows.filter((_, index) => types[index] === 'income'),
    'income',
  );
  const beginValue = toDecimal(input.beginValue, 'beginValue');
  const endValue = toDecimal(input.endValue, 'endValue');
  const dietz = (end: Decimal): SubPeriodResult => modifiedDietz({ ...input, endValue: end, flows: external });
  const net = dietz(endValue);
  // The end value the portfolio would have had without the fees, and the one whose gain is exactly F.
  const gross = dietz(endValue.plus(fees));
  const feeOnly = dietz(beginValue.plus(sumOf(external, 'external')).plus(fees));
  return {
    startDate: net.startDate,
    endDate: net.endDate,
    fees: formatMoney(fees),
    income: formatMoney(income),
    netFlow: net.netFlow,
    denominator: net.denominator,
    netReturn: net.returnValue,
    grossReturn: gross.returnValue,
    feeReturn: feeOnly.returnValue,
    nullReason: net.nullReason,
  };
}

interface DatedValuation extends Valuation {
  day: number;
}

/** feeSubPeriod between each consecutive pair of valuations, flows assigned to the sub-period whose (begin, end] holds their date. */
export function feeSeries(valuations: readonly Valuation[], flows: readonly TypedCashFlow[]): FeeSeriesResult {
  const sorted: DatedValuation[] = valuations
    .map((valuation, index) => ({ ...valuation, day: dayNumber(valuation.date, `valuations[${index}].date`) }))
    .sort((a, b) => a.day - b.day);
  sorted.forEach((valuation, i) => {
    if (i > 0 && valuation.day === sorted[i - 1].day) throw new RangeError(`duplicate valuation date ${valuation.date}`);
  });
  const dated = flows.map((flow, index) => ({ flow, day: dayNumber(flow.date, `flows[${index}].date`) })).sort((a, b) => a.day - b.day);
  const first = sorted[0]?.day ?? Number.POSITIVE_INFINITY;
  const last = sorted[sorted.length - 1]?.day ?? Number.NEGATIVE_INFINITY;
  const unassignedFlows = dated.filter(({ day }) => day <= first || day > last).map(({ flow }) => flow);
  const inside = dated.filter(({ day }) => day > first && day <= last);
  let next = 0;
  const periods = sorted.slice(1).map((end, i) => {
    const periodFlows: TypedCashFlow[] = [];
    while (next < inside.length && inside[next].day <= end.day) periodFlows.push(inside[next++].flow);
    const begin = sorted[i];
    return feeSubPeriod({ beginDate: begin.date, endDate: end.date, beginValue: begin.marketValue, endValue: end.marketValue, flows: periodFlows });
  });
  return { periods, unassignedFlows };
}
