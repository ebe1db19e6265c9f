/**
 * src/returns/analytics/growth-index.ts: G_d = prod(1 + r) from the inception (G = 1), a period
 * return is G_b / G_a - 1, and a null daily return starts a new chain (G = 1, chainStart = its date).
 * Expected values are worked by hand in the comments.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkReturns } from '../../../src/returns/dietz.ts';
import { buildGrowthIndex, extendGrowthIndex, latestOnOrBefore, periodReturn } from '../../../src/returns/analytics/growth-index.ts';
import { Dec } from '../../../src/returns/decimal.ts';

const INCEPTION = '2024-01-31';
// 2024-02-03/04 is a weekend: no valuation. 02-06's return is null (say, a zero Dietz denominator).
const RETURNS = [
  { date: '2024-02-01', returnValue: '0.01' },
  { date: '2024-02-02', returnValue: '0.02' },
  { date: '2024-02-05', returnValue: '-0.01' },
  { date: '2024-02-06', returnValue: null },
  { date: '2024-02-07', returnValue: '0.05' },
];
const INDEX = buildGrowthIndex(INCEPTION, RETURNS);

function value<T>(outcome: { ok: true; value: T } | { ok: false }): T {
  if (!outcome.ok) throw new Error('expected a value');
  return outcome.value;
}

describe('buildGrowthIndex', () => {
  it('multiplies (1 + r) from G = 1 at the inception and restarts the chain at a null return', () => {
    expect(INDEX).toEqual([
      { date: '2024-01-31', growthFactor: '1', chainStart: '2024-01-31' },
      { date: '2024-02-01', growthFactor: '1.01', chainStart: '2024-01-31' }, // 1 x 1.01
      { date: '2024-02-02', growthFactor: '1.0302', chainStart: '2024-01-31' }, // 1.01 x 1.02
      { date: '2024-02-05', growthFactor: '1.019898', chainStart: '2024-01-31' }, // 1.0302 x 0.99
      { date: '2024-02-06', growthFactor: '1', chainStart: '2024-02-06' }, // null: new chain from the close of 02-06
      { date: '2024-02-07', growthFactor: '1.05', chainStart: '2024-02-06' },
    ]);
  });

  it('rejects an unsorted series, a duplicate date and a date on or before the inception', () => {
    expect(() => buildGrowthIndex(INCEPTION, [RETURNS[1], RETURNS[0]])).toThrow(RangeError);
    expect(() => buildGrowthIndex(INCEPTION, [RETURNS[0], RETURNS[0]])).toThrow(RangeError);
    expect(() => buildGrowthIndex(INCEPTION, [{ date: INCEPTION, returnValue: '0.01' }])).toThrow(RangeError);
    expect(() => buildGrowthIndex(INCEPTION, [{ date: '2024-02-30', returnValue: '0.01' }])).toThrow(RangeError);
  });

  it('finds the latest point on or before a date', () => {
    expect(latestOnOrBefore(INDEX, '2024-02-04')?.date).toBe('2024-02-02'); // Sunday -> Friday
    expect(latestOnOrBefore(INDEX, '2024-02-05')?.date).toBe('2024-02-05');
    expect(latestOnOrBefore(INDEX, '2030-01-01')?.date).toBe('2024-02-07');
    expect(latestOnOrBefore(INDEX, '2024-01-30')).toBeNull();
  });
});

describe('periodReturn', () => {
  it('is G_b / G_a - 1 between the latest valuations on or before each date', () => {
    // 1.019898 / 1 - 1
    expect(value(periodReturn(INDEX, '2024-01-31', '2024-02-05'))).toMatchObject({ returnValue: '0.019898000000', nullReason: null });
    // 1.019898 / 1.01 - 1 = 0.0098 (= 1.02 x 0.99 - 1)
    expect(value(periodReturn(INDEX, '2024-02-01', '2024-02-05')).returnValue).toBe('0.009800000000');
    // from Saturday 02-03 = from Friday 02-02's close: 1.019898 / 1.0302 - 1 = -0.01
    expect(value(periodReturn(INDEX, '2024-02-03', '2024-02-05'))).toEqual({
      fromDate: '2024-02-03',
      toDate: '2024-02-05',
      startDate: '2024-02-02',
      endDate: '2024-02-05',
      returnValue: '-0.010000000000',
      nullReason: null,
    });
    // same date: no days, no return
    expect(value(periodReturn(INDEX, '2024-02-05', '2024-02-05')).returnValue).toBe('0.000000000000');
  });

  it('is null with a reason across a null daily return, and computed wholly after it', () => {
    const across = value(periodReturn(INDEX, '2024-02-05', '2024-02-07'));
    expect(across.returnValue).toBeNull();
    expect(across.nullReason).toContain('2024-02-06 is null');
    expect(value(periodReturn(INDEX, '2024-01-31', '2024-02-06')).returnValue).toBeNull();
    // from the close of 02-06 the new chain holds: 1.05 / 1 - 1
    expect(value(periodReturn(INDEX, '2024-02-06', '2024-02-07')).returnValue).toBe('0.050000000000');
  });

  it('is null with a reason before the inception, and a typed error for reversed dates', () => {
    const early = value(periodReturn(INDEX, '2024-01-01', '2024-02-05'));
    expect(early).toMatchObject({ startDate: null, endDate: '2024-02-05', returnValue: null });
    expect(early.nullReason).toContain('starts at 2024-01-31');
    expect(periodReturn(INDEX, '2024-02-05', '2024-02-01')).toEqual({
      ok: false,
      error: { code: 'reversed_dates', message: 'the end date 2024-02-01 is before the start date 2024-02-05', from: '2024-02-05', to: '2024-02-01' },
    });
  });

  it('is null with a reason from a point whose growth is zero (a -100 % day)', () => {
    const index = buildGrowthIndex('2024-01-01', [
      { date: '2024-01-02', returnValue: '-1' },
      { date: '2024-01-03', returnValue: '0.1' },
    ]);
    expect(value(periodReturn(index, '2024-01-01', '2024-01-03')).returnValue).toBe('-1.000000000000');
    expect(value(periodReturn(index, '2024-01-02', '2024-01-03')).nullReason).toContain('zero');
  });

  it('equals linking the daily returns of the period (property; exact after rounding to 12 dp)', () => {
    const dailyReturn = fc.integer({ min: -500_000, max: 500_000 }).map((n) => new Dec(n).dividedBy(10_000_000).toString());
    const scenario = fc
      .array(dailyReturn, { minLength: 1, maxLength: 120 })
      .chain((returns) => fc.tuple(fc.constant(returns), fc.integer({ min: 0, max: returns.length }), fc.integer({ min: 0, max: returns.length })));
    fc.assert(
      fc.property(scenario, ([returns, i, j]) => {
        const [from, to] = i <= j ? [i, j] : [j, i];
        const dates = returns.map((_, k) => new Date(Date.UTC(2020, 0, 2 + k)).toISOString().slice(0, 10));
        const index = buildGrowthIndex(
          '2020-01-01',
          returns.map((r, k) => ({ date: dates[k], returnValue: r })),
        );
        const all = ['2020-01-01', ...dates];
        // returns[k] is the sub-period ending on dates[k] = all[k + 1]: (all[from], all[to]] holds returns[from .. to - 1]
        expect(value(periodReturn(index, all[from], all[to])).returnValue).toBe(linkReturns(returns.slice(from, to)).value);
      }),
      { seed: 20240331, numRuns: 200 },
    );
  });
});

describe('extendGrowthIndex', () => {
  it('continues a stored index from its last point exactly as building it whole (a null return included)', () => {
    const returns = [
      { date: '2024-01-02', returnValue: '0.01' },
      { date: '2024-01-03', returnValue: '-0.002' },
      { date: '2024-01-04', returnValue: null },
      { date: '2024-01-05', returnValue: '0.003' },
      { date: '2024-01-08', returnValue: '0.0005' },
    ];
    const whole = buildGrowthIndex('2024-01-01', returns);
    for (let cut = 1; cut < whole.length; cut++) {
      expect([...whole.slice(0, cut), ...extendGrowthIndex(whole[cut - 1], returns.slice(cut - 1))]).toEqual(whole);
    }
  });
});
