/**
 * src/returns/analytics/fees.ts: net of fees = Modified Dietz over the external flows only (fees
 * and income are inside the portfolio, the valuations already show them); gross of fees = the
 * same with the fees F added back to EMV, over the same denominator D. Fees paid are negative
 * amounts (money out), so F = -(sum of fee amounts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feeSeries, feeSubPeriod, type TypedCashFlow } from '../../../src/returns/analytics/fees.ts';
import { Dec } from '../../../src/returns/decimal.ts';

describe('feeSubPeriod', () => {
  it('one day: a 5 fee and 10 income leave D alone; gross adds the fee back', () => {
    // BMV 1000, EMV 1045 (after the fee of 5 and the dividend of 10). No external flow: D = 1000.
    // net = (1045 - 1000) / 1000 = 0.045; gross = (1045 + 5 - 1000) / 1000 = 0.05; fee = 5 / 1000 = 0.005.
    expect(
      feeSubPeriod({
        beginDate: '2024-01-01',
        endDate: '2024-01-02',
        beginValue: 1000,
        endValue: 1045,
        flows: [
          { date: '2024-01-02', amount: -5, flowType: 'fee' },
          { date: '2024-01-02', amount: 10, flowType: 'income' },
        ],
      }),
    ).toEqual({
      startDate: '2024-01-01',
      endDate: '2024-01-02',
      fees: '5.0000',
      income: '10.0000',
      netFlow: '0.0000',
      denominator: '1000.0000',
      netReturn: '0.045000000000',
      grossReturn: '0.050000000000',
      feeReturn: '0.005000000000',
      nullReason: null,
    });
  });

  it('30 days with a contribution: only the external flow is weighted', () => {
    // CD = 30 (1 Jan -> 31 Jan). +300 start of day on 11 Jan is at work 31 - 11 + 1 = 21 days: w = 0.7.
    // D = 1000 + 0.7 x 300 = 1210. N = 1350 - 1000 - 300 = 50. F = 6.
    // net = 50/1210 = 0.0413223140495867...; gross = 56/1210 = 0.0462809917355371...; F/D = 6/1210 = 0.0049586776859504...
    const result = feeSubPeriod({
      beginDate: '2024-01-01',
      endDate: '2024-01-31',
      beginValue: 1000,
      endValue: 1350,
      flows: [
        { date: '2024-01-11', amount: 300 },
        { date: '2024-01-31', amount: -6, flowType: 'fee' },
      ],
    });
    expect(result).toMatchObject({
      fees: '6.0000',
      netFlow: '300.0000',
      denominator: '1210.0000',
      netReturn: '0.041322314050',
      grossReturn: '0.046280991736',
      feeReturn: '0.004958677686',
    });
  });

  it('treats a positive fee amount as a rebate (negative fees paid)', () => {
    const result = feeSubPeriod({
      beginDate: '2024-01-01',
      endDate: '2024-01-02',
      beginValue: 1000,
      endValue: 1002,
      flows: [{ date: '2024-01-02', amount: 2, flowType: 'fee' }],
    });
    // F = -2: gross = (1002 - 2 - 1000) / 1000 = 0
    expect(result).toMatchObject({ fees: '-2.0000', netReturn: '0.002000000000', grossReturn: '0.000000000000', feeReturn: '-0.002000000000' });
  });

  it('is null with the reason when the denominator is zero', () => {
    const result = feeSubPeriod({
      beginDate: '2024-01-01',
      endDate: '2024-01-02',
      beginValue: 0,
      endValue: 0,
      flows: [{ date: '2024-01-02', amount: -1, flowType: 'fee' }],
    });
    expect(result).toMatchObject({ netReturn: null, grossReturn: null, feeReturn: null });
    expect(result.nullReason).toContain('denominator is zero');
  });

  it('rejects an unknown flow type and a flow outside the sub-period', () => {
    const flow = { date: '2024-01-02', amount: 1, flowType: 'tax' } as unknown as TypedCashFlow;
    expect(() => feeSubPeriod({ beginDate: '2024-01-01', endDate: '2024-01-02', beginValue: 1, endValue: 1, flows: [flow] })).toThrow(RangeError);
    expect(() =>
      feeSubPeriod({
        beginDate: '2024-01-01',
        endDate: '2024-01-02',
        beginValue: 1,
        endValue: 1,
        flows: [{ date: '2024-01-03', amount: -1, flowType: 'fee' }],
      }),
    ).toThrow(RangeError);
  });

  it('gross - net = F / D sub-period by sub-period (property, against an exact oracle)', () => {
    // Identity asserted: with N = EMV - BMV - sum CF_ext, F = -(sum fee amounts) and
    // D = BMV + sum w_i CF_ext,i (w_i = days at work / CD, dietz.ts's rule for BMV > 0), all exact
    // rationals computed here independently at 60 digits:
    //   netReturn   = round12(N / D)
    //   grossReturn = round12((N + F) / D)
    //   feeReturn   = round12(F / D)
    // One D for both is what makes (N + F)/D - N/D = F/D hold exactly before rounding; in money,
    // gross end value - fees = EMV. Income changes neither return.
    const Exact = Dec.clone({ precision: 60 });
    const round12 = (x: InstanceType<typeof Exact>) => new Dec(x.toDecimalPlaces(12, Dec.ROUND_HALF_EVEN)).toFixed(12);
    const money = fc.integer({ min: -5_000_000, max: 5_000_000 }).map((n) => new Dec(n).dividedBy(100).toString());
    const flow = fc.record({
      day: fc.integer({ min: 1, max: 30 }),
      amount: money,
      flowType: fc.constantFrom<'external' | 'fee' | 'income'>('external', 'fee', 'income'),
      timing: fc.constantFrom<'start_of_day' | 'end_of_day'>('start_of_day', 'end_of_day'),
    });
    const scenario = fc.record({
      beginValue: fc.integer({ min: 1, max: 100_000_000 }).map((n) => new Dec(n).dividedBy(100).toString()),
      endValue: money,
      calendarDays: fc.integer({ min: 1, max: 30 }),
      flows: fc.array(flow, { maxLength: 8 }),
    });
    fc.assert(
      fc.property(scenario, ({ beginValue, endValue, calendarDays, flows }) => {
        const dated = flows.map((f) => ({ ...f, day: Math.min(f.day, calendarDays) }));
        const dateOf = (day: number) => new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10);
        const result = feeSubPeriod({
          beginDate: dateOf(0),
          endDate: dateOf(calendarDays),
          beginValue,
          endValue,
          flows: dated.map((f) => ({ date: dateOf(f.day), amount: f.amount, flowType: f.flowType, timing: f.timing })),
        });
        const external = dated.filter((f) => f.flowType === 'external');
        const fees = dated.filter((f) => f.flowType === 'fee').reduce((sum, f) => sum.minus(f.amount), new Exact(0));
        const gain = external.reduce((sum, f) => sum.minus(f.amount), new Exact(endValue).minus(beginValue));
        const capitalDays = external.reduce(
          (sum, f) => sum.plus(new Exact(f.amount).times(f.timing === 'start_of_day' ? calendarDays - f.day + 1 : calendarDays - f.day)),
          new Exact(beginValue).times(calendarDays),
        );
        if (!capitalDays.isPositive() || capitalDays.isZero()) {
          expect([result.netReturn, result.grossReturn, result.feeReturn]).toEqual([null, null, null]);
          return;
        }
        const denominator = capitalDays.dividedBy(calendarDays);
        expect(result.fees).toBe(new Dec(fees).toFixed(4));
        expect(result.netReturn).toBe(round12(gain.dividedBy(denominator)));
        expect(result.grossReturn).toBe(round12(gain.plus(fees).dividedBy(denominator)));
        expect(result.feeReturn).toBe(round12(fees.dividedBy(denominator)));
      }),
      { seed: 20240331, numRuns: 150 },
    );
  });
});

describe('feeSeries', () => {
  it('assigns each flow to the sub-period (begin, end] holding its date and reports the rest', () => {
    const outside: TypedCashFlow = { date: '2024-01-05', amount: -1, flowType: 'fee' };
    const early: TypedCashFlow = { date: '2024-01-01', amount: 100 };
    const { periods, unassignedFlows } = feeSeries(
      [
        { date: '2024-01-03', marketValue: 1045 }, // unsorted on purpose
        { date: '2024-01-01', marketValue: 1000 },
        { date: '2024-01-02', marketValue: 1045 },
      ],
      [outside, { date: '2024-01-02', amount: -5, flowType: 'fee' }, early, { date: '2024-01-03', amount: -1.045, flowType: 'fee' }],
    );
    // Day 1: net 45/1000 = 4.5 %, gross 50/1000 = 5 %. Day 2: net 0, gross 1.045/1045 = 0.1 %.
    expect(periods.map((p) => [p.startDate, p.endDate, p.fees, p.netReturn, p.grossReturn])).toEqual([
      ['2024-01-01', '2024-01-02', '5.0000', '0.045000000000', '0.050000000000'],
      ['2024-01-02', '2024-01-03', '1.0450', '0.000000000000', '0.001000000000'],
    ]);
    expect(unassignedFlows).toEqual([early, outside]);
  });

  it('rejects two valuations on one date', () => {
    expect(() =>
      feeSeries(
        [
          { date: '2024-01-01', marketValue: 1 },
          { date: '2024-01-01', marketValue: 2 },
        ],
        [],
      ),
    ).toThrow(RangeError);
  });
});
