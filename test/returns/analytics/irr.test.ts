/**
 * src/returns/analytics/irr.ts: XIRR (actual/365) and the money-weighted return of a period.
 */
import { describe, expect, it } from 'vitest';
import { moneyWeightedReturn, xirr } from '../../../src/returns/analytics/irr.ts';
import { Dec } from '../../../src/returns/decimal.ts';

// Microsoft's XIRR documentation (support.microsoft.com, "XIRR function"): these flows give 0.373362535 (37.34 %).
const MICROSOFT_EXAMPLE = [
  { date: '2008-01-01', amount: -10000 },
  { date: '2008-03-01', amount: 2750 },
  { date: '2008-10-30', amount: 4250 },
  { date: '2009-02-15', amount: 3250 },
  { date: '2009-04-01', amount: 2750 },
];

function value<T>(outcome: { ok: true; value: T } | { ok: false }): T {
  if (!outcome.ok) throw new Error('expected a value');
  return outcome.value;
}

describe('xirr', () => {
  it("reproduces Microsoft's published example", () => {
    const { rate, nullReason } = xirr(MICROSOFT_EXAMPLE);
    expect(nullReason).toBeNull();
    // The exact root, checked independently (mpmath findroot at 50 digits): 0.37336253351883151030845...
    expect(rate).toBe('0.373362533519');
    // Excel stops iterating once "accurate within 0.000001 percent" (its documentation), so its
    // published 0.373362535 differs from the exact root in the 9th decimal (by 1.5e-9). The 8
    // decimals that Excel's own tolerance guarantees agree, and the difference is inside that tolerance.
    expect(new Dec(rate as string).toDecimalPlaces(8).toFixed(8)).toBe('0.37336253');
    expect(new Dec(rate as string).minus('0.373362535').abs().lessThan('1e-8')).toBe(true);
    // 37.34 % as the documentation rounds it
    expect(new Dec(rate as string).times(100).toDecimalPlaces(2).toFixed(2)).toBe('37.34');
  });

  it('gives exactly 10 % for -100 now and 110 after 365 days, and -10 % for 90', () => {
    expect(
      xirr([
        { date: '2009-01-01', amount: -100 },
        { date: '2010-01-01', amount: 110 },
      ]).rate,
    ).toBe('0.100000000000');
    expect(
      xirr([
        { date: '2009-01-01', amount: -100 },
        { date: '2010-01-01', amount: 90 },
      ]).rate,
    ).toBe('-0.100000000000');
  });

  it('does not depend on the order of the flows, and nets flows of one date', () => {
    const shuffled = [MICROSOFT_EXAMPLE[3], MICROSOFT_EXAMPLE[0], MICROSOFT_EXAMPLE[4], MICROSOFT_EXAMPLE[2], MICROSOFT_EXAMPLE[1]];
    expect(xirr(shuffled).rate).toBe('0.373362533519');
    const split = [...MICROSOFT_EXAMPLE.slice(1), { date: '2008-01-01', amount: -4000 }, { date: '2008-01-01', amount: -6000 }];
    expect(xirr(split).rate).toBe('0.373362533519');
  });

  it('is null with a reason when every flow has the same sign', () => {
    for (const flows of [
      [
        { date: '2009-01-01', amount: 100 },
        { date: '2010-01-01', amount: 110 },
      ],
      [{ date: '2009-01-01', amount: -100 }],
      [],
      [
        { date: '2009-01-01', amount: 0 },
        { date: '2010-01-01', amount: 0 },
      ],
    ]) {
      const result = xirr(flows);
      expect(result.rate).toBeNull();
      expect(result.nullReason).toContain('same sign');
    }
  });

  it('is null, naming several rates, when two rates solve the flows (10 % and 20 %)', () => {
    // -100 + 230 x - 132 x^2 = 0 with x = 1/(1 + r): x = (230 +- 10) / 264, i.e. 1 + r = 1.1 or 1.2.
    // 2009-01-01, 2010-01-01 and 2011-01-01 are 365 days apart each.
    const result = xirr([
      { date: '2009-01-01', amount: -100 },
      { date: '2010-01-01', amount: 230 },
      { date: '2011-01-01', amount: -132 },
    ]);
    expect(result.rate).toBeNull();
    expect(result.nullReason).toContain('more than one rate solves the cash flows');
    expect(result.nullReason).toContain('changes sign 2 times');
  });

  it('is null when the signs change but no rate makes NPV zero', () => {
    // -100 + 50 x - 100 x^2 < 0 for every x (discriminant 2500 - 40000 < 0)
    const result = xirr([
      { date: '2009-01-01', amount: -100 },
      { date: '2010-01-01', amount: 50 },
      { date: '2011-01-01', amount: -100 },
    ]);
    expect(result.rate).toBeNull();
    expect(result.nullReason).toContain('does not change sign');
  });

  it('finds extreme rates of very short periods', () => {
    // +10 % in one day: 1.1^365 - 1 = 1283305580313351.6968994480078979... (50-digit check)
    expect(
      xirr([
        { date: '2024-01-01', amount: -100 },
        { date: '2024-01-02', amount: 110 },
      ]).rate,
    ).toBe('1283305580313351.696899448008');
    // -5 % in one day: 0.95^365 - 1 = -0.99999999260197268594...
    expect(
      xirr([
        { date: '2024-01-01', amount: -100 },
        { date: '2024-01-02', amount: 95 },
      ]).rate,
    ).toBe('-0.999999992602');
  });

  it('rejects malformed dates and amounts', () => {
    expect(() => xirr([{ date: '2009-02-30', amount: -1 }])).toThrow(RangeError);
    expect(() => xirr([{ date: '2009-01-01', amount: 'x' }])).toThrow(RangeError);
  });
});

describe('moneyWeightedReturn', () => {
  it("gives the Microsoft example's rate as the annualised return, and the period's own return beside it", () => {
    // The same flows from the portfolio's side: 10,000 at the start, withdrawals of 2,750, 4,250 and
    // 3,250 (negative, money leaving), 2,750 left at the end. 2008-01-01 -> 2009-04-01 is 456 days:
    // (1.37336253351883...)^(456/365) - 1 = 0.48640487393147361... (50-digit check).
    const result = value(
      moneyWeightedReturn({
        startDate: '2008-01-01',
        endDate: '2009-04-01',
        beginValue: 10000,
        endValue: 2750,
        flows: [
          { date: '2008-03-01', amount: -2750 },
          { date: '2008-10-30', amount: -4250 },
          { date: '2009-02-15', amount: -3250 },
        ],
      }),
    );
    expect(result).toEqual({
      startDate: '2008-01-01',
      endDate: '2009-04-01',
      days: 456,
      periodReturn: '0.486404873931',
      nullReason: null,
      annualizedReturn: '0.373362533519',
      annualizedNullReason: null,
    });
  });

  it('does not annualise below a year: 100 -> 105 over 182 days is 5 % for the period', () => {
    // The IRR would be 1.05^(365/182) - 1 = 10.28 %; the period return is (1 + irr)^(182/365) - 1 = 5 % exactly.
    const result = value(moneyWeightedReturn({ startDate: '2024-01-01', endDate: '2024-07-01', beginValue: 100, endValue: 105, flows: [] }));
    expect(result).toMatchObject({ days: 182, periodReturn: '0.050000000000', annualizedReturn: null });
    expect(result.annualizedNullReason).toContain('shorter than a year');
  });

  it('weights a contribution by its time in the portfolio', () => {
    // 100 at the start, +100 after 365 days, 231 at 730 days: -100 - 100 / g + 231 / g^2 = 0 with g = 1 + r,
    // i.e. 100 g^2 + 100 g - 231 = 0 -> g = (-100 + sqrt(10000 + 92400)) / 200 = (-100 + 320) / 200 = 1.1
    const result = value(
      moneyWeightedReturn({
        startDate: '2009-01-01',
        endDate: '2011-01-01',
        beginValue: 100,
        endValue: 231,
        flows: [{ date: '2010-01-01', amount: 100 }],
      }),
    );
    // 730 days: periodReturn = 1.1^2 - 1
    expect(result).toMatchObject({ days: 730, annualizedReturn: '0.100000000000', periodReturn: '0.210000000000' });
  });

  it('returns typed errors for reversed dates and flows outside the period, and a null for a 0-day period', () => {
    expect(moneyWeightedReturn({ startDate: '2024-02-01', endDate: '2024-01-01', beginValue: 1, endValue: 1, flows: [] })).toMatchObject({
      ok: false,
      error: { code: 'reversed_dates', from: '2024-02-01', to: '2024-01-01' },
    });
    for (const date of ['2024-01-01', '2024-02-02']) {
      expect(moneyWeightedReturn({ startDate: '2024-01-01', endDate: '2024-02-01', beginValue: 1, endValue: 1, flows: [{ date, amount: 1 }] })).toMatchObject({
        ok: false,
        error: { code: 'flow_outside_period', date },
      });
    }
    const empty = value(moneyWeightedReturn({ startDate: '2024-01-01', endDate: '2024-01-01', beginValue: 1, endValue: 1, flows: [] }));
    expect(empty).toMatchObject({ days: 0, periodReturn: null, nullReason: 'the period has no days' });
  });

  it('is null with the reason when the values have no rate (nothing in, something out)', () => {
    const result = value(moneyWeightedReturn({ startDate: '2024-01-01', endDate: '2024-03-01', beginValue: 0, endValue: 5, flows: [] }));
    expect(result.periodReturn).toBeNull();
    expect(result.nullReason).toContain('same sign');
  });
});
