/**
 * Gross and net of fees over a whole series (src/returns/analytics/fees.ts feeSeries, what the
 * recompute stores): for random valuations, external flows, fees and income, sub-period by
 * sub-period, gross - F/D = net (exact before each figure's 12-place rounding), net is the Modified
 * Dietz return over the external flows alone (the stored returnValue as before fees existed), and
 * with no fees gross = net to the last digit. F, N and D come from an exact oracle written here
 * (60 digits), not from the service's code:
 *   N = EMV - BMV - sum CF_ext,  F = -(sum fee amounts),  D = (BMV * CD + sum CF_ext,i * days at work_i) / CD
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feeSeries, type FlowType, type TypedCashFlow } from '../../../src/returns/analytics/fees.ts';
import { dailySeries } from '../../../src/returns/dietz.ts';
import { Dec } from '../../../src/returns/decimal.ts';

const Exact = Dec.clone({ precision: 60 });
type ExactNumber = InstanceType<typeof Exact>;
const round12 = (x: ExactNumber) => new Dec(x.toDecimalPlaces(12, Dec.ROUND_HALF_EVEN)).toFixed(12);
const dateOf = (day: number) => new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10);

interface GeneratedFlow {
  day: number;
  amount: string;
  flowType: FlowType;
  timing: 'start_of_day' | 'end_of_day';
}

const cents = (min: number, max: number) => fc.integer({ min, max }).map((n) => new Dec(n).dividedBy(100).toString());

/** Valuation days strictly increasing (gaps of 1 to 5 days: daily, with weekends and holidays), values positive. */
const scenario = fc
  .record({
    gaps: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 12 }),
    values: fc.array(cents(1, 200_000_000), { minLength: 13, maxLength: 13 }),
    flows: fc.array(
      fc.record({
        offset: fc.integer({ min: 0, max: 70 }),
        amount: cents(-30_000_000, 30_000_000),
        flowType: fc.constantFrom<FlowType>('external', 'fee', 'income'),
        timing: fc.constantFrom<'start_of_day' | 'end_of_day'>('start_of_day', 'end_of_day'),
      }),
      { maxLength: 20 },
    ),
  })
  .map(({ gaps, values, flows }) => {
    const days = gaps.reduce((list, gap) => [...list, list[list.length - 1] + gap], [0]);
    const last = days[days.length - 1];
    return {
      valuations: days.map((day, i) => ({ day, marketValue: values[i] })),
      // Some flows land on the first valuation date or after the last one: they belong to no sub-period.
      flows: flows.map((flow): GeneratedFlow => ({ ...flow, day: Math.min(flow.offset, last + 1) })),
    };
  });

function asInput(valuations: { day: number; marketValue: string }[], flows: GeneratedFlow[]) {
  return {
    valuations: valuations.map((v) => ({ date: dateOf(v.day), marketValue: v.marketValue })),
    flows: flows.map((f): TypedCashFlow => ({ date: dateOf(f.day), amount: f.amount, flowType: f.flowType, timing: f.timing })),
  };
}

/** N, F and D of the sub-period (begin, end] by the formulas of the module comment, or null D when it is not positive. */
function oracle(begin: { day: number; marketValue: string }, end: { day: number; marketValue: string }, flows: GeneratedFlow[]) {
  const inside = flows.filter((f) => f.day > begin.day && f.day <= end.day);
  const external = inside.filter((f) => f.flowType === 'external');
  const calendarDays = end.day - begin.day;
  const fees = inside.filter((f) => f.flowType === 'fee').reduce((sum, f) => sum.minus(f.amount), new Exact(0));
  const gain = external.reduce((sum, f) => sum.minus(f.amount), new Exact(end.marketValue).minus(begin.marketValue));
  const capitalDays = external.reduce(
    (sum, f) => sum.plus(new Exact(f.amount).times(f.timing === 'start_of_day' ? end.day - f.day + 1 : end.day - f.day)),
    new Exact(begin.marketValue).times(calendarDays),
  );
  const positive = capitalDays.isPositive() && !capitalDays.isZero();
  return { gain, fees, denominator: positive ? capitalDays.dividedBy(calendarDays) : null };
}

describe('feeSeries over random series (property)', () => {
  it('gross - F/D = net in every sub-period, net is Modified Dietz over the external flows alone, and without fees gross = net', () => {
    fc.assert(
      fc.property(scenario, ({ valuations, flows }) => {
        const input = asInput(valuations, flows);
        const { periods, unassignedFlows } = feeSeries(input.valuations, input.flows);
        expect(periods).toHaveLength(valuations.length - 1);
        const first = valuations[0].day;
        const last = valuations[valuations.length - 1].day;
        expect(unassignedFlows).toHaveLength(flows.filter((f) => f.day <= first || f.day > last).length);

        // The stored net return is the one the recompute wrote before fees existed, over the external flows.
        const external = input.flows.filter((f) => f.flowType === 'external');
        const dietz = dailySeries(input.valuations, external).periods;

        periods.forEach((period, i) => {
          const { gain, fees, denominator } = oracle(valuations[i], valuations[i + 1], flows);
          expect(period.fees).toBe(new Dec(fees).toFixed(4));
          expect(period.netReturn).toBe(dietz[i].returnValue);
          if (denominator === null) {
            expect([period.netReturn, period.grossReturn, period.feeReturn]).toEqual([null, null, null]);
            return;
          }
          const feeShare = fees.dividedBy(denominator);
          expect(period.netReturn).toBe(round12(gain.dividedBy(denominator)));
          expect(period.grossReturn).toBe(round12(gain.plus(fees).dividedBy(denominator)));
          expect(period.feeReturn).toBe(round12(feeShare));
          // gross - F/D = net: exact before rounding, so within the two roundings (0.5e-12 each) after it.
          const gap = new Exact(period.grossReturn as string)
            .minus(feeShare)
            .minus(period.netReturn as string)
            .abs();
          expect(gap.lessThanOrEqualTo('1e-12')).toBe(true);
        });

        // Without the fees: gross = net exactly, F = 0; income changes neither return.
        const noFees = asInput(
          valuations,
          flows.filter((f) => f.flowType !== 'fee'),
        );
        const withoutFees = feeSeries(noFees.valuations, noFees.flows).periods;
        withoutFees.forEach((period, i) => {
          expect(period.fees).toBe('0.0000');
          expect(period.grossReturn).toBe(period.netReturn);
          expect(period.netReturn).toBe(periods[i].netReturn);
        });
        const externalOnly = asInput(
          valuations,
          flows.filter((f) => f.flowType === 'external'),
        );
        expect(feeSeries(externalOnly.valuations, externalOnly.flows).periods.map((p) => [p.netReturn, p.grossReturn])).toEqual(
          withoutFees.map((p) => [p.netReturn, p.grossReturn]),
        );
      }),
      { seed: 20261128, numRuns: 200 },
    );
  });
});
