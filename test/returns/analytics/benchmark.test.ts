/**
 * src/returns/analytics/benchmark.ts: benchmark returns from index levels (latest level on or
 * before each date), arithmetic and geometric excess, and for a year or more the tracking error
 * (sample sd of monthly differences x sqrt(12)) and information ratio. Worked by hand below.
 */
import { describe, expect, it } from 'vitest';
import {
  benchmarkExcess,
  benchmarkReturn,
  compareToBenchmark,
  excessReturn,
  informationRatio,
  type MonthlyReturn,
  trackingError,
} from '../../../src/returns/analytics/benchmark.ts';

function value<T>(outcome: { ok: true; value: T } | { ok: false }): T {
  if (!outcome.ok) throw new Error('expected a value');
  return outcome.value;
}

// An index that gains exactly 1 % a month through 2023: level_k = 100 x 1.01^k. 31 Dec 2022 is a
// Saturday and 31 Dec 2023 a Sunday, so those two levels are published on the Fridays before.
const LEVELS = [
  { date: '2022-12-30', level: '100' },
  { date: '2023-01-31', level: '101.00' },
  { date: '2023-02-28', level: '102.0100' },
  { date: '2023-03-31', level: '103.030100' },
  { date: '2023-04-30', level: '104.06040100' },
  { date: '2023-05-31', level: '105.1010050100' },
  { date: '2023-06-30', level: '106.152015060100' },
  { date: '2023-07-31', level: '107.21353521070100' },
  { date: '2023-08-31', level: '108.2856705628080100' },
  { date: '2023-09-30', level: '109.368527268436090100' },
  { date: '2023-10-31', level: '110.46221254112045100100' },
  { date: '2023-11-30', level: '111.5668346665316555110100' },
  { date: '2023-12-29', level: '112.682503013196972066120100' },
];

// Monthly differences d = R_p - R_b = 0.002 + (0, -8, 3, 0, 1, 0, -3, 0, 7, 0, 0, 0) / 1000:
// mean 0.002; squared deviations 64 + 9 + 1 + 9 + 49 = 132 (x 1e-6);
// TE = sqrt(12 x 132e-6 / 11) = sqrt(144e-6) = 0.012 exactly.
const PORTFOLIO_MONTHLY: MonthlyReturn[] = ['0.012', '0.004', '0.015', '0.012', '0.013', '0.012', '0.009', '0.012', '0.019', '0.012', '0.012', '0.012'].map(
  (returnValue, i) => ({ month: `2023-${String(i + 1).padStart(2, '0')}`, returnValue }),
);
// prod(1 + R_p,m) - 1, exact (36 digits): 0.15382020074357888915053017097928704
const PORTFOLIO_RETURN = '0.15382020074357888915053017097928704';

describe('benchmarkReturn', () => {
  it('is level_b / level_a - 1 with the latest level on or before each date', () => {
    // 31 Dec 2022 -> 30 Dec 2022's 100; 31 Jan 2023: 101. 101 / 100 - 1 = 0.01
    expect(value(benchmarkReturn(LEVELS, '2022-12-31', '2023-01-31'))).toEqual({
      fromDate: '2022-12-31',
      toDate: '2023-01-31',
      startLevelDate: '2022-12-30',
      endLevelDate: '2023-01-31',
      returnValue: '0.010000000000',
    });
  });

  it('returns typed errors for a date before the first level and for reversed dates', () => {
    expect(benchmarkReturn(LEVELS, '2022-12-01', '2023-01-31')).toEqual({
      ok: false,
      error: {
        code: 'missing_benchmark_level',
        message: 'no benchmark level on or before 2022-12-01 (the first level is on 2022-12-30)',
        dates: ['2022-12-01'],
      },
    });
    expect(benchmarkReturn([], '2023-01-01', '2023-01-31')).toMatchObject({ ok: false, error: { code: 'missing_benchmark_level' } });
    expect(benchmarkReturn(LEVELS, '2023-01-31', '2022-12-31')).toMatchObject({ ok: false, error: { code: 'reversed_dates' } });
  });

  it('throws for unsorted or non-positive levels (bad data upstream)', () => {
    expect(() => benchmarkReturn([LEVELS[1], LEVELS[0]], '2023-01-31', '2023-01-31')).toThrow(RangeError);
    expect(() => benchmarkReturn([{ date: '2023-01-31', level: 0 }], '2023-01-31', '2023-01-31')).toThrow(RangeError);
  });
});

describe('benchmarkExcess', () => {
  it('computes the excess from the unrounded benchmark return', () => {
    // 31 Dec 2022 -> 31 Mar 2023: R_b = 1.01^3 - 1 = 0.030301 exactly; 0.05 - 0.030301 = 0.019699;
    // 1.05 / 1.030301 - 1 = 0.0191196553240266679...
    expect(value(benchmarkExcess(LEVELS, '2022-12-31', '2023-03-31', '0.05'))).toEqual({
      benchmark: { fromDate: '2022-12-31', toDate: '2023-03-31', startLevelDate: '2022-12-30', endLevelDate: '2023-03-31', returnValue: '0.030301000000' },
      excess: { arithmetic: '0.019699000000', geometric: '0.019119655324', geometricNullReason: null },
    });
    const thirds = [
      { date: '2023-01-03', level: '300' },
      { date: '2023-03-31', level: '303.0301' },
    ];
    // R_b = 303.0301 / 300 - 1 = 0.0101003333...; 1.02 / 1.0101003333... - 1 = 0.0098006765664533...
    // (from the return rounded to 12 places, 1.02 / 1.010100333333 - 1 = 0.0098006765667865...: one more in the last place).
    const result = value(benchmarkExcess(thirds, '2023-01-03', '2023-03-31', '0.02'));
    expect(result.benchmark.returnValue).toBe('0.010100333333');
    expect(result.excess).toEqual({ arithmetic: '0.009899666667', geometric: '0.009800676566', geometricNullReason: null });
  });

  it('returns typed errors for a date before the first level and for reversed dates', () => {
    expect(benchmarkExcess(LEVELS, '2022-12-01', '2023-01-31', '0')).toMatchObject({
      ok: false,
      error: { code: 'missing_benchmark_level', dates: ['2022-12-01'] },
    });
    expect(benchmarkExcess(LEVELS, '2023-01-31', '2022-12-31', '0')).toMatchObject({ ok: false, error: { code: 'reversed_dates' } });
  });
});

describe('excessReturn', () => {
  it('is R_p - R_b arithmetically and (1 + R_p) / (1 + R_b) - 1 geometrically', () => {
    // 0.10 - 0.05 = 0.05; 1.10 / 1.05 - 1 = 0.05 / 1.05 = 1/21 = 0.047619047619047...
    expect(excessReturn('0.10', '0.05')).toEqual({ arithmetic: '0.050000000000', geometric: '0.047619047619', geometricNullReason: null });
  });

  it('has no geometric excess over a -100 % benchmark', () => {
    const result = excessReturn('0.10', '-1');
    expect(result).toMatchObject({ arithmetic: '1.100000000000', geometric: null });
    expect(result.geometricNullReason).toContain('-100 %');
  });
});

describe('trackingError and informationRatio', () => {
  it('annualises the sample standard deviation with sqrt(12)', () => {
    // d = (0.01, -0.01): mean 0, sum of squares 0.0002, s^2 = 0.0002 / 1; TE = sqrt(12 x 0.0002) = sqrt(0.0024) = 0.04898979485566356...
    expect(trackingError(['0.01', '-0.01'])).toEqual({ value: '0.048989794856', nullReason: null });
  });

  it('is null with a reason for fewer than two months', () => {
    expect(trackingError(['0.01'])).toEqual({ value: null, nullReason: '1 monthly difference: a sample standard deviation needs at least 2' });
    expect(trackingError([]).value).toBeNull();
  });

  it('gives no information ratio for a zero or null tracking error', () => {
    expect(trackingError(['0.01', '0.01', '0.01']).value).toBe('0.000000000000');
    expect(informationRatio('0.02', '0')).toEqual({ value: null, nullReason: 'the tracking error is zero: the portfolio tracked the benchmark exactly' });
    expect(informationRatio('0.02', null)).toEqual({ value: null, nullReason: 'no tracking error: given as null' });
    expect(informationRatio('0.03', '0.012')).toEqual({ value: '2.500000000000', nullReason: null });
  });
});

describe('compareToBenchmark', () => {
  it('compares a calendar year: excess, tracking error 0.012 and the information ratio', () => {
    const result = value(
      compareToBenchmark({
        startDate: '2022-12-31',
        endDate: '2023-12-31',
        portfolioReturn: PORTFOLIO_RETURN,
        portfolioMonthly: PORTFOLIO_MONTHLY,
        levels: LEVELS,
      }),
    );
    // R_b = 1.01^12 - 1 = 0.126825030131969720661201
    // arithmetic R_p - R_b = 0.02699517061160916848932917...; geometric 1.15382020074357888915... / 1.126825030131969720661201 - 1 = 0.0239568432451732018930565...
    // One calendar year: the annualised excess is the arithmetic excess; IR = 0.026995170611609168... / 0.012 = 2.2495975509674307...
    expect(result).toEqual({
      startDate: '2022-12-31',
      endDate: '2023-12-31',
      portfolioReturn: '0.153820200744',
      benchmark: { fromDate: '2022-12-31', toDate: '2023-12-31', startLevelDate: '2022-12-30', endLevelDate: '2023-12-29', returnValue: '0.126825030132' },
      excess: { arithmetic: '0.026995170612', geometric: '0.023956843245', geometricNullReason: null },
      months: PORTFOLIO_MONTHLY.map((m) => m.month),
      annualizedExcess: { value: '0.026995170612', nullReason: null },
      trackingError: { value: '0.012000000000', nullReason: null },
      informationRatio: { value: '2.249597550967', nullReason: null },
    });
  });

  it('uses only whole calendar months inside the period', () => {
    // 15 Jan 2023 -> 15 Jan 2024: February .. December (11 months); January 2024 is not over, January 2023 began before.
    const levels = [...LEVELS, { date: '2024-01-15', level: '113' }];
    const result = value(
      compareToBenchmark({ startDate: '2023-01-15', endDate: '2024-01-15', portfolioReturn: '0.1', portfolioMonthly: PORTFOLIO_MONTHLY, levels }),
    );
    expect(result.months).toEqual(PORTFOLIO_MONTHLY.slice(1).map((m) => m.month));
    expect(result.trackingError.value).not.toBeNull();
  });

  it('gives no tracking error, information ratio or annualised excess below one year', () => {
    const result = value(
      compareToBenchmark({ startDate: '2023-01-31', endDate: '2023-06-30', portfolioReturn: '0.05', portfolioMonthly: PORTFOLIO_MONTHLY, levels: LEVELS }),
    );
    expect(result.months).toEqual(['2023-02', '2023-03', '2023-04', '2023-05', '2023-06']);
    // 106.152015060100 / 101 - 1 = 1.01^5 - 1 = 0.0510100501
    expect(result.benchmark.returnValue).toBe('0.051010050100');
    for (const statistic of [result.annualizedExcess, result.trackingError, result.informationRatio]) {
      expect(statistic.value).toBeNull();
      expect(statistic.nullReason).toContain('shorter than one year');
    }
  });

  it('makes the tracking error null, naming the month, when a portfolio month is missing or null', () => {
    const withGap = PORTFOLIO_MONTHLY.filter((m) => m.month !== '2023-05').map((m) => (m.month === '2023-07' ? { ...m, returnValue: null } : m));
    const result = value(
      compareToBenchmark({ startDate: '2022-12-31', endDate: '2023-12-31', portfolioReturn: '0.1', portfolioMonthly: withGap, levels: LEVELS }),
    );
    expect(result.trackingError).toEqual({ value: null, nullReason: 'no portfolio return for 2023-05, 2023-07' });
    expect(result.informationRatio).toEqual({ value: null, nullReason: 'no tracking error: no portfolio return for 2023-05, 2023-07' });
    expect(result.annualizedExcess.value).not.toBeNull();
  });

  it('takes "a year or more", the annualisation and the months from the reported period when given', () => {
    // A 1Y period from the close of Saturday 31 Dec 2022 to Sunday 31 Dec 2023, measured between the
    // Friday valuations 30 Dec 2022 and 29 Dec 2023: 364 days apart, but the period is one year.
    const input = { startDate: '2022-12-30', endDate: '2023-12-29', portfolioReturn: PORTFOLIO_RETURN, portfolioMonthly: PORTFOLIO_MONTHLY, levels: LEVELS };
    const measured = value(compareToBenchmark(input));
    expect(measured.trackingError.nullReason).toContain('shorter than one year');
    const reported = value(compareToBenchmark({ ...input, period: { startDate: '2022-12-31', endDate: '2023-12-31' } }));
    expect(reported).toMatchObject({
      startDate: '2022-12-30',
      endDate: '2023-12-29',
      benchmark: { startLevelDate: '2022-12-30', endLevelDate: '2023-12-29', returnValue: '0.126825030132' },
      months: PORTFOLIO_MONTHLY.map((m) => m.month),
      annualizedExcess: { value: '0.026995170612' },
      trackingError: { value: '0.012000000000', nullReason: null },
      informationRatio: { value: '2.249597550967', nullReason: null },
    });
    expect(compareToBenchmark({ ...input, period: { startDate: '2023-12-31', endDate: '2022-12-31' } })).toMatchObject({
      ok: false,
      error: { code: 'reversed_dates' },
    });
  });

  it('returns typed errors for reversed dates and missing levels', () => {
    const input = { portfolioReturn: '0', portfolioMonthly: PORTFOLIO_MONTHLY, levels: LEVELS };
    expect(compareToBenchmark({ ...input, startDate: '2023-12-31', endDate: '2022-12-31' })).toMatchObject({ ok: false, error: { code: 'reversed_dates' } });
    expect(compareToBenchmark({ ...input, startDate: '2022-11-30', endDate: '2023-12-31' })).toMatchObject({
      ok: false,
      error: { code: 'missing_benchmark_level', dates: ['2022-11-30'] },
    });
  });
});
