/**
 * src/returns/analytics/currency.ts. Direction under test: a rate is units of the REPORTING currency
 * per unit of the LOCAL one (EUR/USD 1.10: 1 EUR = 1.10 USD), reporting amount = local x rate,
 * r_fx = rate_end / rate_start - 1, (1 + r_reporting) = (1 + r_local)(1 + r_fx).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertAmounts, convertReturns, decomposeCurrencyReturn, invertRates } from '../../../src/returns/analytics/currency.ts';
import { Dec } from '../../../src/returns/decimal.ts';

const EUR_USD = { local: 'EUR', reporting: 'USD' };
const USD_EUR = { local: 'USD', reporting: 'EUR' };

function value<T>(outcome: { ok: true; value: T } | { ok: false }): T {
  if (!outcome.ok) throw new Error('expected a value');
  return outcome.value;
}

const round12 = (x: InstanceType<typeof Dec>) => x.toDecimalPlaces(12).toFixed(12);

describe('decomposeCurrencyReturn', () => {
  it('reproduces the textbook (CFA) example: local 10 %, currency -5 % -> 4.5 % in the reporting currency', () => {
    // (1 + 0.10)(1 - 0.05) - 1 = 1.045 - 1 = 0.045; the currency effect 0.045 - 0.10 = -0.055
    // (= r_fx (1 + r_local) = -0.05 x 1.1: the -5 % plus the cross term -0.005).
    expect(decomposeCurrencyReturn('0.10', '-0.05')).toEqual({
      localReturn: '0.100000000000',
      currencyReturn: '-0.050000000000',
      reportingReturn: '0.045000000000',
      currencyEffect: '-0.055000000000',
    });
  });
});

describe('convertReturns', () => {
  it('derives r_fx from the rates of each sub-period and keeps going after a null local return', () => {
    const rows = value(
      convertReturns({
        inceptionDate: '2024-01-02',
        localReturns: [
          { date: '2024-01-03', returnValue: '0.10' },
          { date: '2024-01-04', returnValue: null },
        ],
        rates: [
          { date: '2024-01-02', rate: '1.10' },
          { date: '2024-01-03', rate: '1.045' }, // 1.045 / 1.10 - 1 = -0.05
          { date: '2024-01-04', rate: '1.0868' }, // 1.0868 / 1.045 - 1 = 0.04
        ],
        pair: EUR_USD,
      }),
    );
    expect(rows).toEqual([
      {
        startDate: '2024-01-02',
        endDate: '2024-01-03',
        localReturn: '0.100000000000',
        currencyReturn: '-0.050000000000',
        reportingReturn: '0.045000000000',
        currencyEffect: '-0.055000000000',
        nullReason: null,
      },
      {
        startDate: '2024-01-03',
        endDate: '2024-01-04',
        localReturn: null,
        currencyReturn: '0.040000000000',
        reportingReturn: null,
        currencyEffect: null,
        nullReason: 'the local return is null',
      },
    ]);
  });

  it('returns a typed error naming the pair and every date without a rate (never interpolated or carried forward)', () => {
    const outcome = convertReturns({
      inceptionDate: '2024-01-05',
      localReturns: [
        { date: '2024-01-06', returnValue: '0' },
        { date: '2024-01-07', returnValue: '0' },
        { date: '2024-01-08', returnValue: '0' },
      ],
      rates: [
        { date: '2024-01-05', rate: '1.1' },
        { date: '2024-01-08', rate: '1.1' },
      ],
      pair: EUR_USD,
    });
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'missing_fx_rate',
        message: 'no EUR/USD rate for 2024-01-06, 2024-01-07; rates are never interpolated or carried forward',
        pair: 'EUR/USD',
        dates: ['2024-01-06', '2024-01-07'],
      },
    });
  });

  it('holds (1 + r_reporting) = (1 + r_local)(1 + r_fx) day by day (property; exact at 34 digits, compared at 12 dp)', () => {
    const rate = fc.integer({ min: 5_000, max: 200_000 }).map((n) => new Dec(n).dividedBy(10_000).toString()); // 0.5 .. 20
    const localReturn = fc.option(
      fc.integer({ min: -400_000, max: 400_000 }).map((n) => new Dec(n).dividedBy(10_000_000).toString()),
      { nil: null, freq: 10 },
    );
    fc.assert(
      fc.property(rate, fc.array(fc.tuple(localReturn, rate), { minLength: 1, maxLength: 25 }), (firstRate, days) => {
        const dates = days.map((_, k) => new Date(Date.UTC(2024, 0, 2 + k)).toISOString().slice(0, 10));
        const rates = [{ date: '2024-01-01', rate: firstRate }, ...days.map(([, r], k) => ({ date: dates[k], rate: r }))];
        const rows = value(
          convertReturns({ inceptionDate: '2024-01-01', localReturns: days.map(([r], k) => ({ date: dates[k], returnValue: r })), rates, pair: EUR_USD }),
        );
        rows.forEach((row, k) => {
          const fx = new Dec(rates[k + 1].rate).dividedBy(rates[k].rate);
          expect(row.currencyReturn).toBe(round12(fx.minus(1)));
          const local = days[k][0];
          if (local === null) {
            expect(row.reportingReturn).toBeNull();
            return;
          }
          const reporting = new Dec(local).plus(1).times(fx).minus(1);
          expect(row.reportingReturn).toBe(round12(reporting));
          expect(row.currencyEffect).toBe(round12(reporting.minus(local)));
        });
      }),
      { seed: 20240331, numRuns: 100 },
    );
  });
});

describe('convertAmounts', () => {
  it('converts values and flows at their own date’s rate, at full precision', () => {
    expect(
      value(
        convertAmounts(
          [
            { date: '2024-01-02', amount: '1000' },
            { date: '2024-01-03', amount: '-250.5' },
          ],
          [
            { date: '2024-01-02', rate: '1.0850' },
            { date: '2024-01-03', rate: '1.0833' },
          ],
          EUR_USD,
        ),
      ),
    ).toEqual([
      { date: '2024-01-02', rate: '1.085', reportingAmount: '1085' }, // 1000 x 1.085
      { date: '2024-01-03', rate: '1.0833', reportingAmount: '-271.36665' }, // -250.5 x 1.0833, not rounded to 4 dp
    ]);
  });

  it('returns a typed error for a missing rate and throws for bad rate data', () => {
    expect(convertAmounts([{ date: '2024-01-02', amount: 1 }], [], EUR_USD)).toMatchObject({
      ok: false,
      error: { code: 'missing_fx_rate', pair: 'EUR/USD', dates: ['2024-01-02'] },
    });
    expect(() => convertAmounts([], [{ date: '2024-01-02', rate: 0 }], EUR_USD)).toThrow(RangeError);
    expect(() => convertAmounts([], [{ date: '2024-01-02', rate: -1.1 }], EUR_USD)).toThrow(RangeError);
    expect(() =>
      convertAmounts(
        [],
        [
          { date: '2024-01-02', rate: 1.1 },
          { date: '2024-01-02', rate: 1.2 },
        ],
        EUR_USD,
      ),
    ).toThrow(RangeError);
  });

  it('inverts rates (local per reporting)', () => {
    expect(invertRates([{ date: '2024-01-02', rate: '1.25' }])).toEqual([{ date: '2024-01-02', rate: '0.8' }]);
  });

  it('converts there and back to the same amount with the inverted rates (property; identical at 4 dp)', () => {
    const amount = fc.bigInt({ min: -(10n ** 14n), max: 10n ** 14n }).map((n) => new Dec(n.toString()).dividedBy(10_000).toString()); // 4 dp, up to 10^10
    const rate = fc.integer({ min: 1, max: 2_000_000 }).map((n) => new Dec(n).dividedBy(10_000).toString()); // 0.0001 .. 200 (JPY-like to BTC-like)
    fc.assert(
      fc.property(fc.array(fc.tuple(amount, rate), { minLength: 1, maxLength: 20 }), (entries) => {
        const dates = entries.map((_, k) => new Date(Date.UTC(2024, 0, 1 + k)).toISOString().slice(0, 10));
        const rates = entries.map(([, r], k) => ({ date: dates[k], rate: r }));
        const there = value(
          convertAmounts(
            entries.map(([a], k) => ({ date: dates[k], amount: a })),
            rates,
            EUR_USD,
          ),
        );
        const back = value(
          convertAmounts(
            there.map((entry) => ({ date: entry.date, amount: entry.reportingAmount })),
            invertRates(rates),
            USD_EUR,
          ),
        );
        back.forEach((entry, k) => expect(new Dec(entry.reportingAmount).toDecimalPlaces(4).equals(entries[k][0])).toBe(true));
      }),
      { seed: 20240331, numRuns: 100 },
    );
  });
});
