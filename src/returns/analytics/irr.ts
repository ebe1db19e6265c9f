/**
 * Money-weighted return: XIRR, actual/365. The annual rate r solves
 *     sum CF_i / (1 + r)^((d_i - d_0) / 365) = 0
 * (Excel's XIRR convention). Solved for the DAILY growth factor w = (1 + r)^(1/365), so that
 * every discount factor is an integer power, w^-(d_i - d_0), exact to 34 digits with no
 * fractional powers inside the iteration; then r = w^365 - 1 and a period of D days returns
 * w^D - 1 = (1 + r)^(D/365) - 1.
 *
 * Solving:
 * 1. Flows on the same date are netted; zero flows dropped. All of one sign: no root (null).
 * 2. Bracket: NPV's sign is scanned over ln(1 + r) in [-50, 50] (1 + r from e^-50 to e^50, room
 *    for a few days' extreme returns) in steps of 0.01, in floating point with log-sum-exp (the
 *    scan only locates sign changes; each bracket is checked again in decimals). By Descartes'
 *    rule of signs for exponential sums, flows whose signs change once (sorted by date) have at
 *    most one root, so a binary search over the grid finds it; otherwise the whole grid is
 *    scanned and more than one sign change is reported as "more than one rate" (null). Two roots
 *    closer than 1 % apart in 1 + r can be missed by the scan.
 * 3. Safeguarded Newton on w inside the bracket: a Newton step leaving the bracket, or not
 *    halving the error as fast as bisection would, is replaced by a bisection step; stops when
 *    the step is below 1e-30 of w (1e-27 relative on 1 + r, far inside the 1e-12 asked for).
 */
import type { Decimal } from 'decimal.js';
import { type CashFlow, dayNumber } from '../dietz.ts';
import { Dec, formatReturn, toDecimal } from '../decimal.ts';
import { fail, type Outcome, reversedDates, succeed } from './outcome.ts';

export interface DatedAmount {
  /** YYYY-MM-DD */
  date: string;
  /** investor's view: negative = paid in, positive = received */
  amount: Decimal.Value;
}

export interface XirrResult {
  /** the annual rate (actual/365), a fraction */
  rate: string | null;
  nullReason: string | null;
}

export interface MoneyWeightedInput {
  startDate: string;
  endDate: string;
  /** market value at the close of startDate */
  beginValue: Decimal.Value;
  /** market value at the close of endDate */
  endValue: Decimal.Value;
  /** external flows, portfolio's view as in dietz.ts (positive = contribution), dated in (startDate, endDate] */
  flows: readonly CashFlow[];
}

export interface MoneyWeightedResult {
  startDate: string;
  endDate: string;
  days: number;
  /** (1 + irr)^(days/365) - 1: the return over the period itself */
  periodReturn: string | null;
  nullReason: string | null;
  /** the IRR itself, only for periods of 365 days or more (never annualise below a year) */
  annualizedReturn: string | null;
  annualizedNullReason: string | null;
}

const SCAN_MIN = -50;
const SCAN_MAX = 50;
const SCAN_STEP = 0.01;
const SCAN_POINTS = Math.round((SCAN_MAX - SCAN_MIN) / SCAN_STEP);
const TOLERANCE = new Dec('1e-30');
const MAX_ITERATIONS = 400;

/** A netted, non-zero flow: amount at day offset k from the first flow. */
interface Term {
  k: number;
  amount: Decimal;
}

type Solved = { w: Decimal; nullReason: null } | { w: null; nullReason: string };

/** Excel-compatible XIRR of dated amounts (investor's view); null with a reason when no single rate solves them. */
export function xirr(cashFlows: readonly DatedAmount[]): XirrResult {
  const solved = solveDailyFactor(cashFlows);
  if (solved.w === null) return { rate: null, nullReason: solved.nullReason };
  return { rate: formatReturn(solved.w.pow(365).minus(1)), nullReason: null };
}

/**
 * Money-weighted return of a period: the beginning value paid in at startDate, each external flow
 * (a contribution is paid in by the investor, a withdrawal received), the ending value received
 * at endDate. endDate before startDate, or a flow outside (startDate, endDate], is a typed error.
 */
export function moneyWeightedReturn(input: MoneyWeightedInput): Outcome<MoneyWeightedResult> {
  const startDay = dayNumber(input.startDate, 'startDate');
  const endDay = dayNumber(input.endDate, 'endDate');
  if (endDay < startDay) return reversedDates(input.startDate, input.endDate);
  const outside = input.flows.find((flow, index) => {
    const day = dayNumber(flow.date, `flows[${index}].date`);
    return day <= startDay || day > endDay;
  });
  if (outside) {
    const message = `the flow dated ${outside.date} is outside the period (${input.startDate}, ${input.endDate}]`;
    return fail({ code: 'flow_outside_period', message, date: outside.date });
  }
  const days = endDay - startDay;
  const base = { startDate: input.startDate, endDate: input.endDate, days };
  if (days === 0) return succeed({ ...base, ...nothing('the period has no days') });
  const solved = solveDailyFactor(investorFlows(input));
  if (solved.w === null) return succeed({ ...base, ...nothing(solved.nullReason) });
  const annualized = days >= 365;
  return succeed({
    ...base,
    periodReturn: formatReturn(solved.w.pow(days).minus(1)),
    nullReason: null,
    annualizedReturn: annualized ? formatReturn(solved.w.pow(365).minus(1)) : null,
    annualizedNullReason: annualized
      ? null
      : `the period is ${days} day${days === 1 ? '' : 's'}, shorter than a year: money-weighted returns are not annualised below a year`,
  });
}

function nothing(reason: string): Pick<MoneyWeightedResult, 'periodReturn' | 'nullReason' | 'annualizedReturn' | 'annualizedNullReason'> {
  return { periodReturn: null, nullReason: reason, annualizedReturn: null, annualizedNullReason: reason };
}

/** The period as the investor sees it: the begin value and contributions paid in (negative), withdrawals and the end value received. */
function investorFlows(input: MoneyWeightedInput): DatedAmount[] {
  return [
    { date: input.startDate, amount: toDecimal(input.beginValue, 'beginValue').negated() },
    ...input.flows.map((flow, index) => ({ date: flow.date, amount: toDecimal(flow.amount, `flows[${index}].amount`).negated() })),
    { date: input.endDate, amount: toDecimal(input.endValue, 'endValue') },
  ];
}

// ---------------------------------------------------------------------------
// The solver
// ---------------------------------------------------------------------------

/** Same-date flows netted, zeros dropped, sorted by date, days counted from the first. */
function toTerms(cashFlows: readonly DatedAmount[]): Term[] {
  const byDay = new Map<number, Decimal>();
  cashFlows.forEach((flow, index) => {
    const day = dayNumber(flow.date, `cashFlows[${index}].date`);
    byDay.set(day, (byDay.get(day) ?? new Dec(0)).plus(toDecimal(flow.amount, `cashFlows[${index}].amount`)));
  });
  const days = [...byDay.keys()].filter((day) => !(byDay.get(day) as Decimal).isZero()).sort((a, b) => a - b);
  return days.map((day) => ({ k: day - days[0], amount: byDay.get(day) as Decimal }));
}

function signChanges(terms: readonly Term[]): number {
  let changes = 0;
  for (let i = 1; i < terms.length; i++) if (terms[i].amount.isNegative() !== terms[i - 1].amount.isNegative()) changes++;
  return changes;
}

function solveDailyFactor(cashFlows: readonly DatedAmount[]): Solved {
  const terms = toTerms(cashFlows);
  const changes = signChanges(terms);
  if (changes === 0) {
    return { w: null, nullReason: 'all cash flows have the same sign (or are zero): no rate makes their net present value zero' };
  }
  const sign = floatSign(terms);
  const brackets = changes === 1 ? searchSingleBracket(sign) : scanBrackets(sign);
  if (brackets.length === 0) {
    const range = `above -1 up to ${formatRate(SCAN_MAX)}`;
    return { w: null, nullReason: `the net present value does not change sign for rates ${range}: no rate solves the cash flows` };
  }
  if (brackets.length > 1) {
    const near = brackets.map(([low, high]) => formatRate((low + high) / 2)).join(', ');
    return {
      w: null,
      nullReason: `more than one rate solves the cash flows (the net present value changes sign ${brackets.length} times, near ${near}): the money-weighted return is ambiguous`,
    };
  }
  return refine(terms, brackets[0]);
}

/** A grid rate for a reason: ln(1 + r) = L, so r = e^L - 1, to 6 significant digits. */
function formatRate(logGrowth: number): string {
  return Number((Math.exp(logGrowth) - 1).toPrecision(6)).toString();
}

const gridPoint = (i: number): number => SCAN_MIN + i * SCAN_STEP;

/**
 * The sign of NPV at ln(1 + r) = L, in floating point: sum sign_i * e^(ln|CF_i| - L k_i / 365),
 * scaled by the largest term so that neither e^5000 nor e^-5000 overflows or vanishes.
 */
function floatSign(terms: readonly Term[]): (logGrowth: number) => number {
  const logs = terms.map((term) => Math.log(term.amount.abs().toNumber()));
  const signs = terms.map((term) => (term.amount.isNegative() ? -1 : 1));
  return (logGrowth) => {
    const exponents = terms.map((term, i) => logs[i] - (logGrowth * term.k) / 365);
    const largest = exponents.reduce((max, exponent) => Math.max(max, exponent), Number.NEGATIVE_INFINITY);
    const scaled = exponents.reduce((sum, exponent, i) => sum + signs[i] * Math.exp(exponent - largest), 0);
    return Math.sign(scaled);
  };
}

/** One sign change in the flows: at most one root, so the grid's sign is monotone and a binary search finds the bracket. */
function searchSingleBracket(sign: (logGrowth: number) => number): [number, number][] {
  let low = 0;
  let high = SCAN_POINTS;
  const lowSign = sign(gridPoint(low));
  if (lowSign === 0) return [[gridPoint(low), gridPoint(low)]];
  const highSign = sign(gridPoint(high));
  if (highSign === 0) return [[gridPoint(high), gridPoint(high)]];
  if (lowSign === highSign) return [];
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (sign(gridPoint(mid)) === lowSign) low = mid;
    else high = mid;
  }
  return [[gridPoint(low), gridPoint(high)]];
}

/** Every sign change over the grid: [L before, L after]; a grid point where NPV is exactly zero counts once. */
function scanBrackets(sign: (logGrowth: number) => number): [number, number][] {
  const brackets: [number, number][] = [];
  let previous = 0;
  let previousPoint = gridPoint(0);
  for (let i = 0; i <= SCAN_POINTS; i++) {
    const point = gridPoint(i);
    const current = sign(point);
    if (current === 0) continue;
    if (previous !== 0 && current !== previous) brackets.push([previousPoint, point]);
    previous = current;
    previousPoint = point;
  }
  return brackets;
}

/** NPV and its derivative in w: f = sum a_i w^-k_i, f' = sum -k_i a_i w^-(k_i + 1). */
function npv(terms: readonly Term[], w: Decimal): { value: Decimal; slope: Decimal } {
  let value = new Dec(0);
  let slope = new Dec(0);
  for (const term of terms) {
    const discounted = term.amount.times(w.pow(-term.k));
    value = value.plus(discounted);
    slope = slope.minus(discounted.times(term.k).dividedBy(w));
  }
  return { value, slope };
}

/** Safeguarded Newton (Newton-Raphson with bisection fallback) for w in the bracket from the scan. */
function refine(terms: readonly Term[], [lowLog, highLog]: [number, number]): Solved {
  let low = new Dec(lowLog).dividedBy(365).exp();
  let high = new Dec(highLog).dividedBy(365).exp();
  let lowValue = npv(terms, low).value;
  const highValue = npv(terms, high).value;
  if (lowValue.isZero()) return { w: low, nullReason: null };
  if (highValue.isZero()) return { w: high, nullReason: null };
  if (lowValue.isNegative() === highValue.isNegative()) {
    return { w: null, nullReason: 'the rate could not be bracketed in decimal arithmetic: the net present value is too flat near its root' };
  }
  let w = low.plus(high).dividedBy(2);
  let previousStep = high.minus(low);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    const { value, slope } = npv(terms, w);
    if (value.isZero()) return { w, nullReason: null };
    if (value.isNegative() === lowValue.isNegative()) {
      low = w;
      lowValue = value;
    } else {
      high = w;
    }
    const newton = slope.isZero() ? null : w.minus(value.dividedBy(slope));
    const next =
      newton !== null && isInside(newton, low, high) && value.abs().times(2).lessThan(previousStep.times(slope).abs()) ? newton : low.plus(high).dividedBy(2);
    previousStep = next.minus(w).abs();
    w = next;
    if (previousStep.lessThanOrEqualTo(TOLERANCE.times(w))) return { w, nullReason: null };
  }
  return { w: null, nullReason: `the rate did not converge in ${MAX_ITERATIONS} iterations` };
}

function isInside(x: Decimal, a: Decimal, b: Decimal): boolean {
  return x.greaterThan(Dec.min(a, b)) && x.lessThan(Dec.max(a, b));
}
