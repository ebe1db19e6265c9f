/**
 * src/returns/analytics/periods.ts: standard periods as of a date from a growth index.
 * Boundaries (the close each period starts from), the valuation dates used, incomplete periods and
 * the annualisation convention: years = whole calendar years + leftover days / 365, annualised only
 * from one calendar year on. The indexes here have one valuation a month (month ends), which is
 * all a growth index needs; expected values are worked by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { buildGrowthIndex, type GrowthPoint } from '../../../src/returns/analytics/growth-index.ts';
import { type PeriodRow, STANDARD_PERIODS, standardPeriods } from '../../../src/returns/analytics/periods.ts';

/** Month-end dates after `inception` up to `last` (both YYYY-MM-DD month ends). */
function monthEnds(inception: string, last: string): string[] {
  const dates: string[] = [];
  let year = Number(inception.slice(0, 4));
  let month = Number(inception.slice(5, 7));
  for (;;) {
    month++;
    if (month === 13) [year, month] = [year + 1, 1];
    const date = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    if (date > last) return dates;
    dates.push(date);
  }
}

/** A month-end index whose monthly return is `returnOf(date)`. */
function monthlyIndex(inception: string, last: string, returnOf: (date: string) => string | null): GrowthPoint[] {
  return buildGrowthIndex(
    inception,
    monthEnds(inception, last).map((date) => ({ date, returnValue: returnOf(date) })),
  );
}

function rows(input: Parameters<typeof standardPeriods>[0]): Record<string, PeriodRow> {
  const outcome = standardPeriods(input);
  if (!outcome.ok) throw new Error(outcome.error.message);
  expect(outcome.value.map((row) => row.period)).toEqual([...STANDARD_PERIODS]);
  return Object.fromEntries(outcome.value.map((row) => [row.period, row]));
}

const flat = () => '0';

describe('boundaries', () => {
  const index = monthlyIndex('2009-12-31', '2024-12-31', flat);
  const boundaries = (asOf: string) =>
    Object.fromEntries(Object.entries(rows({ asOf, inceptionDate: '2009-12-31', index })).map(([period, row]) => [period, row.boundaryDate]));

  it('as of a quarter end (2024-03-31): 1M clamps to 29 February', () => {
    expect(boundaries('2024-03-31')).toEqual({
      MTD: '2024-02-29',
      QTD: '2023-12-31',
      YTD: '2023-12-31',
      '1M': '2024-02-29', // 31 March - 1 month = "31 February", clamped to the month end
      '3M': '2023-12-31',
      '6M': '2023-09-30', // "31 September" clamped
      '1Y': '2023-03-31',
      '3Y': '2021-03-31',
      '5Y': '2019-03-31',
      '10Y': '2014-03-31',
      SI: '2009-12-31',
    });
  });

  it('as of mid-month (2024-05-15): the same calendar day back, the previous month / quarter / year end', () => {
    expect(boundaries('2024-05-15')).toMatchObject({
      MTD: '2024-04-30',
      QTD: '2024-03-31',
      YTD: '2023-12-31',
      '1M': '2024-04-15',
      '3M': '2024-02-15',
      '6M': '2023-11-15',
      '1Y': '2023-05-15',
    });
  });

  it('as of 29 February: 1Y is 2023-02-28; as of 2023-05-31: 3M is 2023-02-28', () => {
    expect(boundaries('2024-02-29')['1Y']).toBe('2023-02-28');
    expect(boundaries('2023-05-31')['3M']).toBe('2023-02-28');
    expect(boundaries('2023-05-31')['1M']).toBe('2023-04-30');
  });

  it('uses the latest valuation on or before the boundary and as_of', () => {
    // Month-end valuations only: as of 2024-05-15 the 1M boundary 2024-04-15 resolves to 2024-03-31, as_of to 2024-04-30.
    const row = rows({ asOf: '2024-05-15', inceptionDate: '2009-12-31', index })['1M'];
    expect(row).toMatchObject({ startValuationDate: '2024-03-31', endValuationDate: '2024-04-30', days: 30, complete: true });
  });
});

describe('GIPS annualisation', () => {
  // Inception 2021-03-31; every March earns 10 %, every other month 0. As of 2024-03-31:
  // 1Y = 10 %, 3Y = 1.1^3 - 1 = 33.1 %, SI = 3Y. The 3Y period holds 29 Feb 2024 (1,096 days).
  const index = monthlyIndex('2021-03-31', '2024-03-31', (date) => (date.slice(5, 7) === '03' ? '0.1' : '0'));
  const table = rows({ asOf: '2024-03-31', inceptionDate: '2021-03-31', index });

  it('annualises 33.1 % over three calendar years to exactly 10 % (1.331^(1/3) - 1)', () => {
    expect(table['3Y']).toMatchObject({
      returnValue: '0.331000000000',
      days: 1096,
      span: { years: 3, extraDays: 0 },
      annualizedReturn: '0.100000000000',
      annualizedNullReason: null,
    });
    // Actual/365 would give 1.331^(365/1096) - 1 = 0.0999043461..., not the published 10 %: that is why whole years count as 1.
  });

  it('annualises a one-year period to itself and SI over its calendar years', () => {
    expect(table['1Y']).toMatchObject({ returnValue: '0.100000000000', span: { years: 1, extraDays: 0 }, annualizedReturn: '0.100000000000' });
    expect(table.SI).toMatchObject({ boundaryDate: '2021-03-31', complete: true, returnValue: '0.331000000000', annualizedReturn: '0.100000000000' });
  });

  it('never annualises below a year', () => {
    // MTD (29 Feb -> 31 Mar) holds the March 10 %; QTD and YTD too; 6M likewise.
    for (const period of ['MTD', 'QTD', 'YTD', '1M', '3M', '6M'] as const) {
      expect(table[period]).toMatchObject({ returnValue: '0.100000000000', annualizedReturn: null });
      expect(table[period].annualizedNullReason).toContain('shorter than one year');
    }
  });

  it('marks 5Y and 10Y incomplete: the history starts after their start, and no shorter period is substituted', () => {
    for (const period of ['5Y', '10Y'] as const) {
      expect(table[period]).toMatchObject({ complete: false, returnValue: null, startValuationDate: null, days: null, annualizedReturn: null });
      expect(table[period].nullReason).toContain('the history starts at 2021-03-31');
    }
  });

  it('annualises SI with extra days actual/365: 21 % over 2 years + 75 days', () => {
    // Inception 2022-01-15, as of 2024-03-31: back 2 calendar years is 2022-03-31, 75 days after the
    // inception (16 + 28 + 31), so years = 2 + 75/365 = 2.2054794520...; growth 1.1 x 1.1 = 1.21 (two
    // Decembers at 10 %): 1.21^(1/2.2054794520...) - 1 = 0.0902754267221742696... (50-digit check).
    const si = monthlyIndex('2022-01-15', '2024-03-31', (date) => (date.slice(5, 7) === '12' ? '0.1' : '0'));
    const row = rows({ asOf: '2024-03-31', inceptionDate: '2022-01-15', index: si }).SI;
    expect(row).toMatchObject({ span: { years: 2, extraDays: 75 }, returnValue: '0.210000000000', annualizedReturn: '0.090275426722' });
  });

  it('does not annualise an SI shorter than a calendar year, even one of 365 days', () => {
    // 2023-03-01 -> 2024-02-29 is 365 days but one year back from 2024-02-29 is 2023-02-28, before the inception.
    const short = monthlyIndex('2023-03-01', '2024-02-29', () => '0.01');
    const row = rows({ asOf: '2024-02-29', inceptionDate: '2023-03-01', index: short }).SI;
    expect(row).toMatchObject({ days: 365, span: { years: 0, extraDays: 365 }, annualizedReturn: null });
  });

  it('gives no annualised value for a loss of 100 %', () => {
    const wiped = monthlyIndex('2022-12-31', '2024-03-31', (date) => (date === '2023-06-30' ? '-1' : '0'));
    const row = rows({ asOf: '2024-03-31', inceptionDate: '2022-12-31', index: wiped })['1Y'];
    expect(row).toMatchObject({ returnValue: '-1.000000000000', annualizedReturn: null });
    expect(row.annualizedNullReason).toContain('100 %');
  });
});

describe('incomplete and null periods', () => {
  it('flags every period starting before a mid-year inception as incomplete, SI and later ones as complete', () => {
    const index = monthlyIndex('2023-06-30', '2024-03-31', () => '0.01');
    const table = rows({ asOf: '2024-03-31', inceptionDate: '2023-06-30', index });
    expect(table['6M']).toMatchObject({ boundaryDate: '2023-09-30', complete: true, days: 183 });
    expect(table['1Y']).toMatchObject({ complete: false, returnValue: null });
    expect(table['1Y'].nullReason).toBe("the history starts at 2023-06-30, after the period's start 2023-03-31: the period is not covered");
    // SI: 9 months of 1 %: 1.01^9 - 1 = 0.093685272684360901 exactly -> 0.093685272684 at 12 dp
    expect(table.SI).toMatchObject({ complete: true, returnValue: '0.093685272684', annualizedReturn: null });
  });

  it('gives a null return with the chain break as the reason, leaving later periods computed', () => {
    const index = monthlyIndex('2022-12-31', '2024-03-31', (date) => (date === '2024-01-31' ? null : '0.02'));
    const table = rows({ asOf: '2024-03-31', inceptionDate: '2022-12-31', index });
    expect(table.YTD).toMatchObject({ complete: true, returnValue: null });
    expect(table.YTD.nullReason).toContain('2024-01-31 is null');
    // MTD: 29 Feb -> 31 Mar, after the break: 2 %. 1M likewise; 3M from 31 Dec spans it.
    expect(table.MTD.returnValue).toBe('0.020000000000');
    expect(table['3M'].returnValue).toBeNull();
  });

  it('does not report 0 % over 0 days when the index is stale: no valuation after the boundary is incomplete', () => {
    const index = monthlyIndex('2022-12-31', '2024-01-31', () => '0.01');
    const table = rows({ asOf: '2024-03-31', inceptionDate: '2022-12-31', index });
    expect(table.MTD).toMatchObject({ complete: false, returnValue: null, endValuationDate: '2024-01-31' });
    expect(table.MTD.nullReason).toContain('no valuation after');
    // YTD still has a valuation after 31 Dec (31 Jan): its end is that stale valuation, as endValuationDate says.
    expect(table.YTD).toMatchObject({ complete: true, returnValue: '0.010000000000', endValuationDate: '2024-01-31' });
  });

  it('as of the inception itself: a 0-day SI of 0 %, every other period incomplete', () => {
    const index = monthlyIndex('2024-03-31', '2024-03-31', flat);
    const table = rows({ asOf: '2024-03-31', inceptionDate: '2024-03-31', index });
    expect(table.SI).toMatchObject({ complete: true, days: 0, returnValue: '0.000000000000' });
    expect(table.MTD.complete).toBe(false);
  });

  it('returns a typed error for as_of before the inception and throws for an index not starting at it', () => {
    const index = monthlyIndex('2023-06-30', '2024-03-31', flat);
    expect(standardPeriods({ asOf: '2023-06-29', inceptionDate: '2023-06-30', index })).toEqual({
      ok: false,
      error: {
        code: 'as_of_before_inception',
        message: 'as_of 2023-06-29 is before the inception 2023-06-30',
        asOf: '2023-06-29',
        inceptionDate: '2023-06-30',
      },
    });
    expect(() => standardPeriods({ asOf: '2024-03-31', inceptionDate: '2023-05-31', index })).toThrow(RangeError);
    expect(() => standardPeriods({ asOf: '2024-02-30', inceptionDate: '2023-06-30', index })).toThrow(RangeError);
  });
});
