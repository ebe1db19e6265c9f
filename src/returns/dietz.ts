/**
 * Returns math: Modified Dietz sub-period returns, geometric linking and the
 * custodian-vs-computed comparison. Pure functions, no I/O.
 *
 * Conventions (see DESIGN.md "Returns math"):
 *
 * - Valuations are END-OF-DAY market values. A sub-period runs from the close of
 *   valuation date d0 to the close of valuation date d1, so it covers the calendar
 *   days d0+1 .. d1 and CD = d1 - d0.
 * - A flow dated D belongs to the sub-period with d0 < D <= d1. A flow dated d0 has
 *   already happened by the close of d0 (it is in BMV or belongs to the previous
 *   sub-period), so passing it here is a caller bug and throws.
 * - Days at work for a flow dated D (the number of whole days the money is in the
 *   portfolio before the close of d1):
 *       start_of_day: d1 - D + 1   (it is there for all of day D)
 *       end_of_day:   d1 - D       (it arrives after day D's activity)
 *   so a start-of-day flow gets exactly one more day of weight than an end-of-day
 *   flow on the same date. Weight w_i = daysAtWork_i / CD, which equals DESIGN.md's
 *   (CD - D_i) / CD with D_i counted from the start of the sub-period (the start of
 *   day d0+1): D_i = D - d0 - 1 for start-of-day, D - d0 for end-of-day.
 *   Consequences: a start-of-day flow on d0+1 has weight 1; an end-of-day flow on d1
 *   has weight 0; with daily valuations (CD = 1) a flow weighs 1 or 0.
 * - Default timing (industry recommendation): inflows start of day, outflows end of
 *   day; that is the conservative choice (inflows raise the capital base for the
 *   whole day, outflows keep it there). A flow's explicit `timing` overrides it.
 * - R = (EMV - BMV - sum CF_i) / (BMV + sum w_i * CF_i). To keep the arithmetic
 *   exact the sums are done in "money-days" (BMV * CD + sum daysAtWork_i * CF_i,
 *   integers times decimals) and divided once at the end; a denominator that is
 *   exactly zero therefore tests as zero even when the weights are thirds.
 * - A zero or negative denominator yields returnValue null and a nullReason, never
 *   Infinity or NaN.
 * - Output strings: money to 4 dp, returns to 12 dp, bps to 8 dp, ROUND_HALF_EVEN.
 *   Returns are fractions (0.0123 means 1.23 %), never percentages.
 * - Nothing is annualized.
 */
import type { Decimal } from 'decimal.js';
import { Dec, fixed, formatMoney as money, formatReturn as ret, toDecimal } from './decimal.ts';

const BPS_DP = 8;
const MS_PER_DAY = 86_400_000;

export type FlowTiming = 'start_of_day' | 'end_of_day';

export interface CashFlow {
  /** YYYY-MM-DD */
  date: string;
  /** positive = inflow (contribution), negative = outflow (withdrawal) */
  amount: Decimal.Value;
  /** overrides defaultTiming(amount) */
  timing?: FlowTiming;
}

export interface Valuation {
  /** YYYY-MM-DD; the market value at the close of this day */
  date: string;
  marketValue: Decimal.Value;
}

export interface SubPeriodResult {
  startDate: string;
  endDate: string;
  beginValue: string;
  endValue: string;
  /** sum of the flows' amounts */
  netFlow: string;
  /** sum w_i * CF_i */
  weightedFlow: string;
  /** BMV + weightedFlow: the average capital at work */
  denominator: string;
  returnValue: string | null;
  nullReason: string | null;
}

export interface ModifiedDietzInput {
  beginDate: string;
  endDate: string;
  beginValue: Decimal.Value;
  endValue: Decimal.Value;
  flows: readonly CashFlow[];
}

export interface DailySeriesResult {
  periods: SubPeriodResult[];
  /** flows dated on/before the first valuation date or after the last one */
  unassignedFlows: CashFlow[];
}

export interface LinkedReturn {
  value: string | null;
  nullReason: string | null;
}

/** The comparison statuses, in order of concern (the GraphQL enum and the MCP output derive from it). */
export const COMPARISON_STATUSES = ['match', 'review', 'investigate'] as const;
export type ComparisonStatus = (typeof COMPARISON_STATUSES)[number];

export interface ClassifyInput {
  /** custodian-reported return as a fraction; null/undefined = missing */
  custodian?: Decimal.Value | null;
  /** our computed return as a fraction; null/undefined = missing */
  computed?: Decimal.Value | null;
  matchThresholdBps?: Decimal.Value;
  reviewThresholdBps?: Decimal.Value;
}

export interface Classification {
  /** (computed - custodian) * 10000, signed, 8 dp; null when a side is missing */
  differenceBps: string | null;
  status: ComparisonStatus;
  reason: string;
}

export const DEFAULT_MATCH_THRESHOLD_BPS = 1;
export const DEFAULT_REVIEW_THRESHOLD_BPS = 10;

// ---------------------------------------------------------------------------
// Dates: 'YYYY-MM-DD' as whole UTC day numbers, so no timezone or DST drift.
// ---------------------------------------------------------------------------

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 (UTC) for a valid 'YYYY-MM-DD' calendar date; throws otherwise. */
export function dayNumber(date: string, label = 'date'): number {
  const match = typeof date === 'string' ? ISO_DATE.exec(date) : null;
  if (!match) throw new RangeError(`${label} must be a YYYY-MM-DD string, got ${JSON.stringify(date)}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC silently rolls 2024-02-30 over to March; a round trip catches it.
  const roundTrips = parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
  if (!roundTrips) throw new RangeError(`${label} is not a real calendar date: ${date}`);
  return parsed.getTime() / MS_PER_DAY;
}

/** Calendar days from `from` to `to` (negative if `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to, 'to') - dayNumber(from, 'from');
}

// ---------------------------------------------------------------------------
// Decimal helpers
// ---------------------------------------------------------------------------

/** Thresholds parsed so far: a page of comparisons repeats its organization's two on every row. */
const THRESHOLDS = new Map<string, Decimal>();

function thresholdDecimal(value: Decimal.Value, label: string): Decimal {
  const key = typeof value === 'string' || typeof value === 'number' ? `${typeof value}:${value}` : null;
  const known = key === null ? undefined : THRESHOLDS.get(key);
  if (known) return known;
  const parsed = toDecimal(value, label);
  if (key !== null && THRESHOLDS.size < 1000) THRESHOLDS.set(key, parsed);
  return parsed;
}

// ---------------------------------------------------------------------------
// Modified Dietz
// ---------------------------------------------------------------------------

/** Inflows (amount >= 0) start of day, outflows end of day. A zero flow moves no capital, so its timing is moot. */
export function defaultTiming(amount: Decimal.Value): FlowTiming {
  return toDecimal(amount, 'amount').isNegative() ? 'end_of_day' : 'start_of_day';
}

interface PlacedFlow {
  amount: Decimal;
  /** whole days the money is in the portfolio before the close of the sub-period's end date */
  daysAtWork: number;
}

function placeFlow(flow: CashFlow, beginDay: number, endDay: number, index: number): PlacedFlow {
  const label = `flows[${index}]`;
  const day = dayNumber(flow.date, `${label}.date`);
  if (day <= beginDay || day > endDay) {
    throw new RangeError(
      `${label} dated ${flow.date} is outside the sub-period (begin, end]; ` + 'a flow on the begin valuation date belongs to the previous sub-period',
    );
  }
  const amount = toDecimal(flow.amount, `${label}.amount`);
  const timing = flow.timing ?? defaultTiming(amount);
  if (timing !== 'start_of_day' && timing !== 'end_of_day') {
    throw new RangeError(`${label}.timing must be start_of_day or end_of_day, got ${String(timing)}`);
  }
  const daysAtWork = timing === 'start_of_day' ? endDay - day + 1 : endDay - day;
  return { amount, daysAtWork };
}

interface Weighting {
  /** the divisor that turns money-days into money (CD, or CD' under the zero-begin-value rule) */
  periodDays: number;
  /** days at work credited to a flow; weight = daysFor(flow) / periodDays */
  daysFor: (flow: PlacedFlow) => number;
}

/**
 * Zero begin value rule ("a zero begin value starts the period at the first flow").
 * When BMV is exactly 0 and some flow is non-zero, nothing was at work before the
 * first non-zero flow, so the sub-period effectively begins at that flow's instant:
 *   CD' = days at work of the earliest non-zero flow (the maximum daysAtWork),
 *   w_i = daysAtWork_i / CD'  (the first flow gets weight 1: it is the start capital).
 * If CD' = 0 (every non-zero flow is end-of-day on the end date) all those flows
 * happen at the start instant itself and each gets weight 1, so R = (EMV - CF) / CF.
 * Zero-amount flows are ignored when finding the first flow: they bring no capital.
 * With a non-zero BMV the ordinary weights over CD apply.
 */
function chooseWeighting(beginValue: Decimal, flows: readonly PlacedFlow[], calendarDays: number): Weighting {
  const movingFlows = flows.filter((flow) => !flow.amount.isZero());
  if (!beginValue.isZero() || movingFlows.length === 0) {
    return { periodDays: calendarDays, daysFor: (flow) => flow.daysAtWork };
  }
  const effectiveDays = Math.max(...movingFlows.map((flow) => flow.daysAtWork));
  if (effectiveDays === 0) return { periodDays: 1, daysFor: () => 1 };
  return { periodDays: effectiveDays, daysFor: (flow) => Math.min(flow.daysAtWork, effectiveDays) };
}

function nullReasonFor(capitalDays: Decimal): string | null {
  if (capitalDays.isZero()) return 'denominator is zero: no capital at work in the sub-period';
  if (capitalDays.isNegative()) {
    return 'denominator is negative: outflows exceed the capital at work, the return is undefined';
  }
  return null;
}

/**
 * One Modified Dietz return between two end-of-day valuations.
 * Throws on invalid dates/amounts, endDate <= beginDate, or a flow outside (beginDate, endDate].
 */
export function modifiedDietz(input: ModifiedDietzInput): SubPeriodResult {
  const beginDay = dayNumber(input.beginDate, 'beginDate');
  const endDay = dayNumber(input.endDate, 'endDate');
  if (endDay <= beginDay) {
    throw new RangeError(`endDate ${input.endDate} must be after beginDate ${input.beginDate}`);
  }
  const beginValue = toDecimal(input.beginValue, 'beginValue');
  const endValue = toDecimal(input.endValue, 'endValue');
  const flows = input.flows.map((flow, index) => placeFlow(flow, beginDay, endDay, index));

  const { periodDays, daysFor } = chooseWeighting(beginValue, flows, endDay - beginDay);
  const netFlow = flows.reduce((sum, flow) => sum.plus(flow.amount), new Dec(0));
  // Money-days: exact (integer day counts times decimals); divide once at the end.
  const flowDays = flows.reduce((sum, flow) => sum.plus(flow.amount.times(daysFor(flow))), new Dec(0));
  const capitalDays = beginValue.times(periodDays).plus(flowDays);
  const gain = endValue.minus(beginValue).minus(netFlow);

  const nullReason = nullReasonFor(capitalDays);
  return {
    startDate: input.beginDate,
    endDate: input.endDate,
    beginValue: money(beginValue),
    endValue: money(endValue),
    netFlow: money(netFlow),
    weightedFlow: money(flowDays.dividedBy(periodDays)),
    denominator: money(capitalDays.dividedBy(periodDays)),
    returnValue: nullReason ? null : ret(gain.times(periodDays).dividedBy(capitalDays)),
    nullReason,
  };
}

// ---------------------------------------------------------------------------
// Series of sub-periods
// ---------------------------------------------------------------------------

interface DatedValuation {
  date: string;
  day: number;
  marketValue: Decimal.Value;
}

/** Sorted by date; duplicate dates throw because a day has one closing value. */
function sortValuations(valuations: readonly Valuation[]): DatedValuation[] {
  const dated = valuations.map((valuation, index) => ({
    date: valuation.date,
    day: dayNumber(valuation.date, `valuations[${index}].date`),
    marketValue: valuation.marketValue,
  }));
  dated.sort((a, b) => a.day - b.day);
  for (let i = 1; i < dated.length; i++) {
    if (dated[i].day === dated[i - 1].day) throw new RangeError(`duplicate valuation date ${dated[i].date}`);
  }
  return dated;
}

/** Index i of the sub-period (days[i], days[i+1]] holding `day`, or -1 if none does. */
function subPeriodIndex(days: readonly number[], day: number): number {
  if (days.length < 2 || day <= days[0] || day > days[days.length - 1]) return -1;
  let low = 1;
  let high = days.length - 1;
  while (low < high) {
    // smallest index whose day is >= the flow's day is the sub-period's end
    const mid = (low + high) >> 1;
    if (days[mid] < day) low = mid + 1;
    else high = mid;
  }
  return low - 1;
}

/**
 * One Modified Dietz sub-period between each consecutive pair of valuation dates
 * (with daily valuations, one return per day). Flows are assigned to the sub-period
 * whose (d0, d1] holds their date; flows on/before the first valuation date or after
 * the last are not used and come back in `unassignedFlows` for the caller to report.
 */
export function dailySeries(valuations: readonly Valuation[], flows: readonly CashFlow[]): DailySeriesResult {
  const sorted = sortValuations(valuations);
  const days = sorted.map((valuation) => valuation.day);
  const flowsByPeriod: CashFlow[][] = sorted.slice(1).map(() => []);
  const unassignedFlows: CashFlow[] = [];
  flows.forEach((flow, index) => {
    const period = subPeriodIndex(days, dayNumber(flow.date, `flows[${index}].date`));
    if (period < 0) unassignedFlows.push(flow);
    else flowsByPeriod[period].push(flow);
  });
  const periods = flowsByPeriod.map((periodFlows, i) =>
    modifiedDietz({
      beginDate: sorted[i].date,
      endDate: sorted[i + 1].date,
      beginValue: sorted[i].marketValue,
      endValue: sorted[i + 1].marketValue,
      flows: periodFlows,
    }),
  );
  return { periods, unassignedFlows };
}

// ---------------------------------------------------------------------------
// Linking and whole-range returns
// ---------------------------------------------------------------------------

/**
 * The linked return up to and including each sub-period: element i is linkReturns(returns[0..i])
 * (computed from the exact running product, so the last one equals linkReturns(returns)). From the
 * first null sub-period on every element is null.
 */
export function cumulativeLinkedReturns(returns: readonly (Decimal.Value | null)[]): (string | null)[] {
  let growth: Decimal | null = new Dec(1);
  return returns.map((r, index) => {
    growth = growth === null || r === null || r === undefined ? null : growth.times(toDecimal(r, `returns[${index}]`).plus(1));
    return growth === null ? null : ret(growth.minus(1));
  });
}

/**
 * Time-weighted return: prod(1 + r_t) - 1. Any null sub-period makes the result null
 * (a gap cannot be bridged). An empty list links to 0. Never annualized.
 */
export function linkReturns(returns: readonly (Decimal.Value | null)[]): LinkedReturn {
  const nullCount = returns.filter((r) => r === null || r === undefined).length;
  if (nullCount > 0) {
    const verb = nullCount === 1 ? 'is' : 'are';
    return {
      value: null,
      nullReason: `${nullCount} of ${returns.length} sub-period returns ${verb} null; the linked return is undefined`,
    };
  }
  const growth = returns.reduce<Decimal>((product, r, index) => product.times(toDecimal(r as Decimal.Value, `returns[${index}]`).plus(1)), new Dec(1));
  return { value: ret(growth.minus(1)), nullReason: null };
}

/**
 * Money-weighted return: a single Modified Dietz over the whole range.
 * The range is pinned to valuation dates so it covers exactly the same interval as
 * linking dailySeries() over the valuations dated in [startDate, endDate]:
 *   begin = the first valuation date >= startDate (normally startDate itself), BMV its value;
 *   end   = the last valuation date <= endDate, EMV its value;
 *   flows dated in (begin, end] are used, all others ignored.
 * The result's startDate/endDate are those pinned dates. Throws if the range holds
 * fewer than two valuation dates.
 */
export function periodModifiedDietz(valuations: readonly Valuation[], flows: readonly CashFlow[], startDate: string, endDate: string): SubPeriodResult {
  const startDay = dayNumber(startDate, 'startDate');
  const endDay = dayNumber(endDate, 'endDate');
  if (endDay <= startDay) throw new RangeError(`endDate ${endDate} must be after startDate ${startDate}`);
  const inRange = sortValuations(valuations).filter((v) => v.day >= startDay && v.day <= endDay);
  if (inRange.length < 2) {
    throw new RangeError(`need at least two valuation dates in [${startDate}, ${endDate}], found ${inRange.length}`);
  }
  const begin = inRange[0];
  const end = inRange[inRange.length - 1];
  const rangeFlows = flows.filter((flow, index) => {
    const day = dayNumber(flow.date, `flows[${index}].date`);
    return day > begin.day && day <= end.day;
  });
  return modifiedDietz({
    beginDate: begin.date,
    endDate: end.date,
    beginValue: begin.marketValue,
    endValue: end.marketValue,
    flows: rangeFlows,
  });
}

// ---------------------------------------------------------------------------
// Custodian comparison
// ---------------------------------------------------------------------------

function isMissing(value: Decimal.Value | null | undefined): value is null | undefined {
  return value === null || value === undefined;
}

function missingSide(input: ClassifyInput): string {
  if (isMissing(input.custodian)) return isMissing(input.computed) ? 'Both returns are missing' : 'The custodian return is missing';
  return 'The computed return is missing';
}

/**
 * A distance in bps for a sentence: 2 decimals, or as many as it takes not to look equal to a
 * threshold it is not equal to (10.00000001 is "10.00000001", never "10.00" over a 10 bps threshold).
 */
function readableBps(distance: Decimal, thresholds: Decimal[]): string {
  const short = fixed(distance, 2);
  if (!thresholds.some((threshold) => threshold.equals(short) && !threshold.equals(distance))) return short;
  return fixed(distance, BPS_DP).replace(/0+$/, '');
}

/** -1, 0 or 1; zero (including -0) has no sign, so 0 vs -0.01 is not a flip. */
function signOf(value: Decimal): number {
  if (value.isZero()) return 0;
  return value.isNegative() ? -1 : 1;
}

/** One side strictly positive, the other strictly negative. */
function isSignFlip(custodian: Decimal, computed: Decimal): boolean {
  return signOf(custodian) * signOf(computed) < 0;
}

/**
 * Compare custodian-reported and computed returns (both fractions).
 * differenceBps = (computed - custodian) * 10000. With d = |differenceBps| (unrounded):
 *   missing side                                   -> investigate (differenceBps null)
 *   d <= match threshold                           -> match (a tiny sign flip around zero is noise)
 *   opposite strict signs and d > match threshold  -> investigate
 *   d <= review threshold                          -> review
 *   otherwise                                      -> investigate
 * Thresholds are inclusive and configurable (e.g. per organization).
 */
export function classifyDifference(input: ClassifyInput): Classification {
  const matchBps = thresholdDecimal(input.matchThresholdBps ?? DEFAULT_MATCH_THRESHOLD_BPS, 'matchThresholdBps');
  const reviewBps = thresholdDecimal(input.reviewThresholdBps ?? DEFAULT_REVIEW_THRESHOLD_BPS, 'reviewThresholdBps');
  if (matchBps.isNegative() || reviewBps.lessThan(matchBps)) {
    throw new RangeError('thresholds must satisfy 0 <= matchThresholdBps <= reviewThresholdBps');
  }
  if (isMissing(input.custodian) || isMissing(input.computed)) {
    return { differenceBps: null, status: 'investigate', reason: missingSide(input) };
  }
  const custodian = toDecimal(input.custodian, 'custodian');
  const computed = toDecimal(input.computed, 'computed');
  const difference = computed.minus(custodian).times(10_000);
  const distance = difference.abs();
  const differenceBps = fixed(difference, BPS_DP);
  // Reasons are sentences a user reads in the comparison table; differenceBps has the full precision.
  const apart = `${readableBps(distance, [matchBps, reviewBps])} bps apart`;
  const match = `${matchBps.toString()} bps`;
  const review = `${reviewBps.toString()} bps`;

  if (distance.lessThanOrEqualTo(matchBps)) {
    return { differenceBps, status: 'match', reason: `Within the match threshold: ${apart} (threshold ${match})` };
  }
  if (isSignFlip(custodian, computed)) {
    return {
      differenceBps,
      status: 'investigate',
      reason: `Opposite signs: the custodian reports ${custodian.toString()} and the computed return is ${computed.toString()} (${apart})`,
    };
  }
  if (distance.lessThanOrEqualTo(reviewBps)) {
    return { differenceBps, status: 'review', reason: `Over the match threshold, within the review threshold: ${apart} (thresholds ${match} and ${review})` };
  }
  return { differenceBps, status: 'investigate', reason: `Over the review threshold: ${apart} (threshold ${review})` };
}
