/**
 * src/returns/analytics/calendar.ts: monthly and yearly returns linked from daily returns, partial
 * first / last rows flagged. Expected values are worked by hand in the comments.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkReturns } from '../../../src/returns/dietz.ts';
import { calendarFromIndex, calendarReturns, type CalendarRow } from '../../../src/returns/analytics/calendar.ts';
import { buildGrowthIndex } from '../../../src/returns/analytics/growth-index.ts';
import { Dec } from '../../../src/returns/decimal.ts';

describe('calendarReturns', () => {
  // Inception mid-January; valuations on a few days only (each return runs from the previous valuation).
  const result = calendarReturns('2024-01-15', [
    { date: '2024-01-16', returnValue: '0.01' },
    { date: '2024-01-31', returnValue: '0.02' },
    { date: '2024-02-15', returnValue: '-0.01' },
    { date: '2024-02-29', returnValue: '0.03' },
    { date: '2024-03-10', returnValue: '0.05' },
  ]);

  it('links each month from its daily returns and flags the partial first and last months', () => {
    expect(result.months).toEqual([
      {
        period: '2024-01',
        startDate: '2024-01-15',
        endDate: '2024-01-31',
        returnValue: '0.030200000000', // 1.01 x 1.02 - 1
        nullReason: null,
        growthFactor: '1.0302',
        partial: true,
        partialReason: 'starts at the inception 2024-01-15, after the month began',
      },
      {
        period: '2024-02',
        startDate: '2024-01-31',
        endDate: '2024-02-29',
        returnValue: '0.019700000000', // 0.99 x 1.03 - 1
        nullReason: null,
        growthFactor: '1.0197',
        partial: false,
        partialReason: null,
      },
      {
        period: '2024-03',
        startDate: '2024-02-29',
        endDate: '2024-03-10',
        returnValue: '0.050000000000',
        nullReason: null,
        growthFactor: '1.05',
        partial: true,
        partialReason: "ends at 2024-03-10, before the month's last day 2024-03-31",
      },
    ]);
  });

  it('links the year the same way; the last year is the year to date', () => {
    // 1.0302 x 1.0197 x 1.05 = 1.05049494 x 1.05 = 1.103019687
    expect(result.years).toEqual([
      {
        period: '2024',
        startDate: '2024-01-15',
        endDate: '2024-03-10',
        returnValue: '0.103019687000',
        nullReason: null,
        growthFactor: '1.103019687',
        partial: true,
        partialReason: "starts at the inception 2024-01-15, after the year began; ends at 2024-03-10, before the year's last day 2024-12-31",
      },
    ]);
    expect(result.yearToDate).toBe(result.years[0]);
  });

  it('starts a full first month when the inception is the previous month end, and splits years at 31 December', () => {
    const { months, years, yearToDate } = calendarReturns('2023-11-30', [
      { date: '2023-12-29', returnValue: '0.1' }, // Friday; 30/31 December is a weekend
      { date: '2024-01-02', returnValue: '0.1' }, // spans the year end: it counts in January
      { date: '2024-01-31', returnValue: '0' },
    ]);
    expect(months.map((row) => [row.period, row.startDate, row.endDate, row.returnValue, row.partial])).toEqual([
      ['2023-12', '2023-11-30', '2023-12-29', '0.100000000000', false],
      ['2024-01', '2023-12-29', '2024-01-31', '0.100000000000', false],
    ]);
    // 2023 starts at the inception 30 Nov (partial); it is not the last row, so ending on 29 Dec is not flagged.
    expect(years.map((row) => [row.period, row.returnValue, row.partialReason])).toEqual([
      ['2023', '0.100000000000', 'starts at the inception 2023-11-30, after the year began'],
      ['2024', '0.100000000000', "ends at 2024-01-31, before the year's last day 2024-12-31"],
    ]);
    expect(yearToDate?.period).toBe('2024');
  });

  it('makes a month (and its year) with a null daily return null, naming the date; other months are unaffected', () => {
    const { months, years } = calendarReturns('2024-01-31', [
      { date: '2024-02-01', returnValue: '0.01' },
      { date: '2024-02-02', returnValue: null },
      { date: '2024-03-01', returnValue: '0.02' },
    ]);
    expect(months[0]).toMatchObject({ period: '2024-02', returnValue: null, growthFactor: null });
    expect(months[0].nullReason).toBe('no daily return for 2024-02-02: 1 of 2 sub-period returns is null; the linked return is undefined');
    expect(months[1]).toMatchObject({ period: '2024-03', returnValue: '0.020000000000' });
    expect(years[0].returnValue).toBeNull();
  });

  it('has no rows for an empty series and rejects an unsorted one', () => {
    expect(calendarReturns('2024-01-31', [])).toEqual({ months: [], years: [], yearToDate: null });
    expect(() =>
      calendarReturns('2024-01-31', [
        { date: '2024-02-02', returnValue: '0' },
        { date: '2024-02-01', returnValue: '0' },
      ]),
    ).toThrow(RangeError);
  });

  it('links months to the same return as linking the days, and years likewise (property; exact after rounding to 12 dp)', () => {
    const dailyReturn = fc.integer({ min: -300_000, max: 300_000 }).map((n) => new Dec(n).dividedBy(10_000_000).toString());
    // Gaps of 1-4 days between valuations, ~100-800 days in all: several months and often two or three years.
    const series = fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), dailyReturn), { minLength: 1, maxLength: 250 });
    fc.assert(
      fc.property(series, (steps) => {
        let day = Date.UTC(2022, 10, 20);
        const daily = steps.map(([gap, returnValue]) => {
          day += gap * 86_400_000;
          return { date: new Date(day).toISOString().slice(0, 10), returnValue };
        });
        const { months, years } = calendarReturns('2022-11-20', daily);
        const expected = linkReturns(daily.map((entry) => entry.returnValue)).value;
        const linked = (rows: typeof months) =>
          rows
            .reduce((product, row) => product.times(row.growthFactor as string), new Dec(1))
            .minus(1)
            .toDecimalPlaces(12, Dec.ROUND_HALF_EVEN)
            .toFixed(12);
        expect(linked(months)).toBe(expected);
        expect(linked(years)).toBe(expected);
        for (const row of months) expect(new Dec(row.growthFactor as string).minus(1).toDecimalPlaces(12).toFixed(12)).toBe(row.returnValue);
      }),
      { seed: 20240331, numRuns: 150 },
    );
  });
});

describe('calendarFromIndex', () => {
  it('gives the rows calendarReturns gives, from the index points at each month end (property; nulls included)', () => {
    const dailyReturn = fc.oneof(
      { weight: 30, arbitrary: fc.integer({ min: -300_000, max: 300_000 }).map((n) => new Dec(n).dividedBy(10_000_000).toString()) },
      { weight: 1, arbitrary: fc.constant(null) },
    );
    const series = fc.array(fc.tuple(fc.integer({ min: 1, max: 9 }), dailyReturn), { minLength: 0, maxLength: 200 });
    fc.assert(
      fc.property(series, (steps) => {
        let day = Date.UTC(2022, 10, 20);
        const daily = steps.map(([gap, returnValue]) => {
          day += gap * 86_400_000;
          return { date: new Date(day).toISOString().slice(0, 10), returnValue };
        });
        const index = buildGrowthIndex('2022-11-20', daily);
        // What the service reads: the inception and the last point of every month.
        const monthEnds = index.filter((point, i) => i === 0 || i === index.length - 1 || index[i + 1].date.slice(0, 7) !== point.date.slice(0, 7));
        const fromIndex = calendarFromIndex(monthEnds);
        const fromDays = calendarReturns('2022-11-20', daily);
        const comparable = (rows: CalendarRow[]) => rows.map(({ growthFactor: _factor, nullReason, ...row }) => ({ ...row, isNull: nullReason !== null }));
        expect(comparable(fromIndex.months)).toEqual(comparable(fromDays.months));
        expect(comparable(fromIndex.years)).toEqual(comparable(fromDays.years));
      }),
      { seed: 20261128, numRuns: 200 },
    );
  });
});
