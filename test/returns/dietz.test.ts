/**
 * Worked examples for src/returns/dietz.ts. Every expected value was computed by hand
 * in the comment next to it (fractions first, decimals last), not by running the code.
 *
 * Reminder of the conventions under test:
 *   valuations are end-of-day; sub-period d0 -> d1 has CD = d1 - d0;
 *   a flow on D (d0 < D <= d1) is at work  d1 - D + 1 days if start_of_day,
 *                                          d1 - D     days if end_of_day;
 *   w = daysAtWork / CD;  R = (EMV - BMV - sum CF) / (BMV + sum w*CF);
 *   default timing: inflows start_of_day, outflows end_of_day;
 *   money 4 dp, returns 12 dp, bps 8 dp, ROUND_HALF_EVEN.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MATCH_THRESHOLD_BPS,
  DEFAULT_REVIEW_THRESHOLD_BPS,
  classifyDifference,
  cumulativeLinkedReturns,
  dailySeries,
  dayNumber,
  daysBetween,
  defaultTiming,
  linkReturns,
  modifiedDietz,
  periodModifiedDietz,
} from '../../src/returns/dietz.ts';

describe('day arithmetic', () => {
  it('counts calendar days in UTC across leap days and DST changes', () => {
    // 2024 is a leap year: Feb 28 -> Feb 29 -> Mar 1 = 2 days; 2023: Feb 28 -> Mar 1 = 1 day.
    expect(daysBetween('2024-02-28', '2024-03-01')).toBe(2);
    expect(daysBetween('2023-02-28', '2023-03-01')).toBe(1);
    // US DST starts 2024-03-10 and EU DST ends 2024-10-27; whole UTC days are unaffected.
    expect(daysBetween('2024-03-09', '2024-03-11')).toBe(2);
    expect(daysBetween('2024-10-26', '2024-10-28')).toBe(2);
    expect(daysBetween('2024-01-01', '2025-01-01')).toBe(366);
    expect(daysBetween('2024-03-11', '2024-03-08')).toBe(-3);
    expect(dayNumber('1970-01-02')).toBe(1);
  });

  it.each(['2024-02-30', '2023-02-29', '2024-13-01', '2024-00-10', '2024-3-8', 'not-a-date', '', '2024-03-08T00:00:00Z'])('rejects invalid date %j', (bad) => {
    expect(() => dayNumber(bad)).toThrow(RangeError);
    expect(() => modifiedDietz({ beginDate: bad, endDate: '2024-03-11', beginValue: 1, endValue: 1, flows: [] })).toThrow(RangeError);
    expect(() =>
      modifiedDietz({
        beginDate: '2024-03-08',
        endDate: '2024-03-11',
        beginValue: 1,
        endValue: 1,
        flows: [{ date: bad, amount: 1 }],
      }),
    ).toThrow(RangeError);
    expect(() => dailySeries([{ date: bad, marketValue: 1 }], [])).toThrow(RangeError);
  });

  it('accepts 29 February in a leap year', () => {
    expect(daysBetween('2024-02-29', '2024-03-01')).toBe(1);
  });
});

describe('defaultTiming', () => {
  it('puts inflows at the start of the day and outflows at the end', () => {
    expect(defaultTiming('100')).toBe('start_of_day');
    expect(defaultTiming(-1)).toBe('end_of_day');
    expect(defaultTiming(0)).toBe('start_of_day'); // moot: a zero flow moves no capital
  });
});

describe('modifiedDietz', () => {
  it('a day without flows is the simple return', () => {
    // 2024-03-04 -> 2024-03-05, CD = 1, BMV 1,000,000, EMV 1,002,500, no flows.
    // R = (1,002,500 - 1,000,000 - 0) / (1,000,000 + 0) = 2,500 / 1,000,000 = 0.0025
    expect(
      modifiedDietz({
        beginDate: '2024-03-04',
        endDate: '2024-03-05',
        beginValue: '1000000',
        endValue: '1002500',
        flows: [],
      }),
    ).toEqual({
      startDate: '2024-03-04',
      endDate: '2024-03-05',
      beginValue: '1000000.0000',
      endValue: '1002500.0000',
      netFlow: '0.0000',
      weightedFlow: '0.0000',
      denominator: '1000000.0000',
      returnValue: '0.002500000000',
      nullReason: null,
    });
  });

  it('one inflow on a daily sub-period: start of day weighs 1, end of day weighs 0', () => {
    // 2024-03-04 -> 2024-03-05, CD = 1, BMV 100,000, inflow 10,000 on 03-05, EMV 111,000.
    // Numerator = 111,000 - 100,000 - 10,000 = 1,000 either way.
    // start_of_day: days at work = 5 - 5 + 1 = 1, w = 1/1 = 1
    //   R = 1,000 / (100,000 + 10,000) = 1/110 = 0.00909090909090|909... -> 0.009090909091
    // end_of_day:   days at work = 5 - 5 = 0,     w = 0/1 = 0
    //   R = 1,000 / 100,000 = 0.01
    const base = { beginDate: '2024-03-04', endDate: '2024-03-05', beginValue: '100000', endValue: '111000' };
    const sod = modifiedDietz({ ...base, flows: [{ date: '2024-03-05', amount: '10000', timing: 'start_of_day' }] });
    const eod = modifiedDietz({ ...base, flows: [{ date: '2024-03-05', amount: '10000', timing: 'end_of_day' }] });
    expect(sod).toMatchObject({ weightedFlow: '10000.0000', denominator: '110000.0000', returnValue: '0.009090909091' });
    expect(eod).toMatchObject({ weightedFlow: '0.0000', denominator: '100000.0000', returnValue: '0.010000000000' });
    // default timing for an inflow is start of day
    const dflt = modifiedDietz({ ...base, flows: [{ date: '2024-03-05', amount: '10000' }] });
    expect(dflt.returnValue).toBe(sod.returnValue);
  });

  it('the same inflow over a weekend: start of day gets exactly one more day (1/CD) of weight', () => {
    // Fri 2024-03-08 -> Mon 2024-03-11, CD = 11 - 8 = 3. BMV 500,000, inflow 30,000 on Sat 03-09, EMV 536,000.
    // Numerator = 536,000 - 500,000 - 30,000 = 6,000.
    // start_of_day: days = 11 - 9 + 1 = 3, w = 3/3 = 1; weighted = 30,000; denominator 530,000
    //   R = 6,000 / 530,000 = 3/265 = 0.011320754716|98... -> 0.011320754717
    // end_of_day:   days = 11 - 9 = 2,     w = 2/3;   weighted = 20,000; denominator 520,000
    //   R = 6,000 / 520,000 = 3/260 = 0.011538461538|46... -> 0.011538461538
    // weighted difference = 30,000 * (3 - 2)/3 = 10,000 = one day of the flow's weight.
    const base = { beginDate: '2024-03-08', endDate: '2024-03-11', beginValue: '500000', endValue: '536000' };
    const sod = modifiedDietz({ ...base, flows: [{ date: '2024-03-09', amount: 30000, timing: 'start_of_day' }] });
    const eod = modifiedDietz({ ...base, flows: [{ date: '2024-03-09', amount: 30000, timing: 'end_of_day' }] });
    expect(sod).toMatchObject({ weightedFlow: '30000.0000', denominator: '530000.0000', returnValue: '0.011320754717' });
    expect(eod).toMatchObject({ weightedFlow: '20000.0000', denominator: '520000.0000', returnValue: '0.011538461538' });
  });

  it('several flows in a Friday-to-Monday sub-period (CD = 3)', () => {
    // Fri 2024-03-08 BMV 500,000 -> Mon 2024-03-11 EMV 530,000, CD = 3.
    //   +20,000 Sat 03-09, default start_of_day: days = 11 - 9 + 1 = 3, w = 1
    //    -5,000 Sun 03-10, default end_of_day:   days = 11 - 10    = 1, w = 1/3
    //    +9,000 Mon 03-11, explicit end_of_day:  days = 11 - 11    = 0, w = 0
    // net flow = 20,000 - 5,000 + 9,000 = 24,000
    // weighted = 20,000 - 5,000/3 + 0 = 18,333.333... -> 18333.3333
    // denominator = 518,333.333... -> 518333.3333  (exactly 1,555,000 / 3)
    // numerator = 530,000 - 500,000 - 24,000 = 6,000
    // R = 6,000 * 3 / 1,555,000 = 18/1555
    //   long division: 18/1555 = 0.011575562700|964... -> 0.011575562701
    expect(
      modifiedDietz({
        beginDate: '2024-03-08',
        endDate: '2024-03-11',
        beginValue: '500000',
        endValue: '530000',
        flows: [
          { date: '2024-03-09', amount: '20000' },
          { date: '2024-03-10', amount: '-5000' },
          { date: '2024-03-11', amount: '9000', timing: 'end_of_day' },
        ],
      }),
    ).toEqual({
      startDate: '2024-03-08',
      endDate: '2024-03-11',
      beginValue: '500000.0000',
      endValue: '530000.0000',
      netFlow: '24000.0000',
      weightedFlow: '18333.3333',
      denominator: '518333.3333',
      returnValue: '0.011575562701',
      nullReason: null,
    });
  });

  it('an outflow (default end of day, and overridden to start of day)', () => {
    // 2024-03-05 -> 2024-03-06, CD = 1, BMV 200,000, outflow -50,000 on 03-06, EMV 152,000.
    // numerator = 152,000 - 200,000 - (-50,000) = 2,000
    // default end_of_day: w = 0 -> R = 2,000 / 200,000 = 0.01
    // start_of_day:       w = 1 -> R = 2,000 / (200,000 - 50,000) = 2,000 / 150,000 = 0.013333333333|33 -> 0.013333333333
    const base = { beginDate: '2024-03-05', endDate: '2024-03-06', beginValue: '200000', endValue: '152000' };
    expect(modifiedDietz({ ...base, flows: [{ date: '2024-03-06', amount: '-50000' }] })).toMatchObject({
      netFlow: '-50000.0000',
      weightedFlow: '0.0000',
      denominator: '200000.0000',
      returnValue: '0.010000000000',
    });
    expect(modifiedDietz({ ...base, flows: [{ date: '2024-03-06', amount: '-50000', timing: 'start_of_day' }] })).toMatchObject({
      weightedFlow: '-50000.0000',
      denominator: '150000.0000',
      returnValue: '0.013333333333',
    });
  });

  it('a zero denominator gives null with a reason, never Infinity or NaN', () => {
    // Nothing at all: BMV 0, no flows, EMV 0 -> denominator 0.
    const empty = modifiedDietz({ beginDate: '2024-03-04', endDate: '2024-03-05', beginValue: 0, endValue: 0, flows: [] });
    expect(empty.returnValue).toBeNull();
    expect(empty.nullReason).toMatch(/denominator is zero/);
    expect(empty.denominator).toBe('0.0000');

    // Exactly zero with a one-third weight: Fri 03-08 -> Mon 03-11, CD = 3, BMV 100,
    // outflow -300 on Sun 03-10 end_of_day: days = 11 - 10 = 1, w = 1/3, weighted = -100.
    // denominator = 100 - 100 = 0 exactly (in money-days: 100*3 + 1*(-300) = 0), so null,
    // not a huge number from 1/3 rounding.
    const thirds = modifiedDietz({
      beginDate: '2024-03-08',
      endDate: '2024-03-11',
      beginValue: '100',
      endValue: '0',
      flows: [{ date: '2024-03-10', amount: '-300' }],
    });
    expect(thirds).toMatchObject({
      weightedFlow: '-100.0000',
      denominator: '0.0000',
      returnValue: null,
      nullReason: 'denominator is zero: no capital at work in the sub-period',
    });
  });

  it('a negative denominator gives null with a reason', () => {
    // 2024-03-04 -> 03-05, CD = 1, BMV 100, outflow -150 start_of_day on 03-05 (w = 1).
    // denominator = 100 - 150 = -50 -> null.
    const result = modifiedDietz({
      beginDate: '2024-03-04',
      endDate: '2024-03-05',
      beginValue: '100',
      endValue: '0',
      flows: [{ date: '2024-03-05', amount: '-150', timing: 'start_of_day' }],
    });
    expect(result).toMatchObject({ denominator: '-50.0000', returnValue: null });
    expect(result.nullReason).toMatch(/denominator is negative/);
  });

  it('a zero begin value starts the sub-period at the first flow', () => {
    // Fri 2024-03-08 BMV 0 -> Mon 2024-03-11 EMV 151,500 (CD = 3).
    //   +100,000 Sun 03-10 start_of_day: days = 11 - 10 + 1 = 2
    //    +50,000 Mon 03-11 start_of_day: days = 11 - 11 + 1 = 1
    // Effective CD' = the first flow's days = 2, so weights are 2/2 = 1 and 1/2.
    // weighted = 100,000 + 25,000 = 125,000 = denominator (BMV 0)
    // numerator = 151,500 - 0 - 150,000 = 1,500
    // R = 1,500 / 125,000 = 0.012
    // (The plain CD = 3 weights 2/3 and 1/3 would give 1,500 / 83,333.33 = 0.018, charging
    //  the account for a Saturday on which it held nothing.)
    const flows = [
      { date: '2024-03-10', amount: '100000' },
      { date: '2024-03-11', amount: '50000' },
    ];
    const base = { beginDate: '2024-03-08', endDate: '2024-03-11', beginValue: '0', endValue: '151500' };
    expect(modifiedDietz({ ...base, flows })).toMatchObject({
      netFlow: '150000.0000',
      weightedFlow: '125000.0000',
      denominator: '125000.0000',
      returnValue: '0.012000000000',
      nullReason: null,
    });
    // A zero-amount flow brings no capital, so it does not move the start earlier.
    expect(modifiedDietz({ ...base, flows: [{ date: '2024-03-09', amount: '0' }, ...flows] }).returnValue).toBe('0.012000000000');
  });

  it('a zero begin value funded at the end of the last day: the flow is the start capital (weight 1)', () => {
    // 2024-03-04 BMV 0 -> 03-05, +1,000 end_of_day on 03-05: days = 0, so CD' = 0 and the
    // flow sits at the start instant itself, weight 1.
    // EMV 1,000: R = (1,000 - 0 - 1,000) / 1,000 = 0
    // EMV 1,010: R = 10 / 1,000 = 0.01
    const base = { beginDate: '2024-03-04', endDate: '2024-03-05', beginValue: '0' };
    const flows = [{ date: '2024-03-05', amount: '1000', timing: 'end_of_day' as const }];
    expect(modifiedDietz({ ...base, endValue: '1000', flows })).toMatchObject({
      denominator: '1000.0000',
      returnValue: '0.000000000000',
    });
    expect(modifiedDietz({ ...base, endValue: '1010', flows }).returnValue).toBe('0.010000000000');
  });

  it('rejects flows on the begin date or outside the sub-period, and a non-positive span', () => {
    const base = { beginDate: '2024-03-08', endDate: '2024-03-11', beginValue: '1', endValue: '1' };
    expect(() => modifiedDietz({ ...base, flows: [{ date: '2024-03-08', amount: 1 }] })).toThrow(/outside the sub-period/);
    expect(() => modifiedDietz({ ...base, flows: [{ date: '2024-03-12', amount: 1 }] })).toThrow(/outside the sub-period/);
    expect(() => modifiedDietz({ ...base, flows: [{ date: '2024-03-07', amount: 1 }] })).toThrow(RangeError);
    expect(() => modifiedDietz({ ...base, endDate: '2024-03-08', flows: [] })).toThrow(/must be after/);
    expect(() => modifiedDietz({ ...base, flows: [{ date: '2024-03-09', amount: 'abc' }] })).toThrow(RangeError);
    expect(() => modifiedDietz({ ...base, beginValue: Number.NaN, flows: [] })).toThrow(/finite/);
  });
});

describe('dailySeries', () => {
  // Valuations (given out of order):
  //   Mon 03-04: 0 | Tue 03-05: 100,500 | Wed 03-06: 101,505 | Fri 03-08: 101,000
  // Flows:
  //   +100,000 on 03-05 (start_of_day) -> sub-period 03-04..03-05
  //    -1,505 on 03-07 (end_of_day)    -> sub-period 03-06..03-08
  //   03-01 (before), 03-04 (on the first valuation date) and 03-09 (after) -> unassigned
  const valuations = [
    { date: '2024-03-06', marketValue: '101505' },
    { date: '2024-03-04', marketValue: '0' },
    { date: '2024-03-08', marketValue: '101000' },
    { date: '2024-03-05', marketValue: '100500' },
  ];
  const before = { date: '2024-03-01', amount: '7' };
  const onFirst = { date: '2024-03-04', amount: '8' };
  const after = { date: '2024-03-09', amount: '9' };
  const flows = [before, { date: '2024-03-07', amount: '-1505' }, onFirst, { date: '2024-03-05', amount: '100000' }, after];

  it('computes one sub-period per consecutive pair of valuation dates', () => {
    const { periods, unassignedFlows } = dailySeries(valuations, flows);
    expect(periods.map((p) => [p.startDate, p.endDate])).toEqual([
      ['2024-03-04', '2024-03-05'],
      ['2024-03-05', '2024-03-06'],
      ['2024-03-06', '2024-03-08'],
    ]);
    // 03-04 -> 03-05: BMV 0, so the zero-begin rule: CD' = 5 - 5 + 1 = 1, w = 1.
    //   R = (100,500 - 0 - 100,000) / 100,000 = 0.005
    expect(periods[0]).toMatchObject({ beginValue: '0.0000', denominator: '100000.0000', returnValue: '0.005000000000' });
    // 03-05 -> 03-06: no flows. R = (101,505 - 100,500) / 100,500 = 1,005 / 100,500 = 0.01
    expect(periods[1]).toMatchObject({ netFlow: '0.0000', returnValue: '0.010000000000' });
    // 03-06 -> 03-08: CD = 2, outflow -1,505 on 03-07 end_of_day: days = 8 - 7 = 1, w = 1/2.
    //   weighted = -752.5; denominator = 101,505 - 752.5 = 100,752.5
    //   numerator = 101,000 - 101,505 + 1,505 = 1,000
    //   R = 1,000 / 100,752.5 = 2,000 / 201,505 = 400 / 40,301
    //   40301 * 0.0099 = 398.9799, remainder 400 - 398.9799 = 1.0201;
    //   1.0201 / 40301 = 0.0000253120269968...  so R = 0.009925312026|9968... -> 0.009925312027
    expect(periods[2]).toMatchObject({
      netFlow: '-1505.0000',
      weightedFlow: '-752.5000',
      denominator: '100752.5000',
      returnValue: '0.009925312027',
    });
    expect(unassignedFlows).toEqual([before, onFirst, after]);
  });

  it('handles fewer than two valuations and rejects duplicate dates', () => {
    expect(dailySeries([], [before])).toEqual({ periods: [], unassignedFlows: [before] });
    expect(dailySeries([{ date: '2024-03-04', marketValue: 1 }], [after])).toEqual({ periods: [], unassignedFlows: [after] });
    expect(() =>
      dailySeries(
        [
          { date: '2024-03-04', marketValue: 1 },
          { date: '2024-03-04', marketValue: 2 },
        ],
        [],
      ),
    ).toThrow(/duplicate valuation date/);
  });
});

describe('linkReturns', () => {
  it('links three returns geometrically', () => {
    // (1.01)(1.02)(0.995) - 1: 1.01 * 1.02 = 1.0302; 1.0302 * 0.995 = 1.0302 - 0.005151 = 1.025049
    // -> 0.025049 (not the arithmetic sum 0.025)
    expect(linkReturns(['0.01', '0.02', '-0.005'])).toEqual({ value: '0.025049000000', nullReason: null });
  });

  it('an empty list links to zero', () => {
    expect(linkReturns([])).toEqual({ value: '0.000000000000', nullReason: null });
  });

  it('any null period makes the link null and says how many were null', () => {
    expect(linkReturns(['0.01', null, '0.02', null])).toEqual({
      value: null,
      nullReason: '2 of 4 sub-period returns are null; the linked return is undefined',
    });
    expect(linkReturns([null, 0.01, 0.02]).nullReason).toBe('1 of 3 sub-period returns is null; the linked return is undefined');
  });
});

describe('cumulativeLinkedReturns', () => {
  it('gives the linked return of every prefix; the last equals linkReturns of the whole list', () => {
    // 1.01 -> 0.01; 1.01 * 1.02 = 1.0302 -> 0.0302; 1.0302 * 0.995 = 1.025049 -> 0.025049
    expect(cumulativeLinkedReturns(['0.01', '0.02', '-0.005'])).toEqual(['0.010000000000', '0.030200000000', '0.025049000000']);
    const returns = ['0.0123', '-0.0045', '0.00071', '0.031', '-0.0199'];
    const cumulative = cumulativeLinkedReturns(returns);
    returns.forEach((_, i) => expect(cumulative[i]).toBe(linkReturns(returns.slice(0, i + 1)).value));
  });

  it('is null from the first null return on, and empty for no returns', () => {
    expect(cumulativeLinkedReturns(['0.01', null, '0.02'])).toEqual(['0.010000000000', null, null]);
    expect(cumulativeLinkedReturns([])).toEqual([]);
  });
});

describe('time-weighted (linked) vs money-weighted (period Modified Dietz)', () => {
  // Mon 2024-01-01: 100,000 | Tue 01-02: 110,000 | Wed 01-03: 199,500
  // +100,000 inflow on 01-03 (default start_of_day), right before a bad day.
  const valuations = [
    { date: '2024-01-01', marketValue: '100000' },
    { date: '2024-01-02', marketValue: '110000' },
    { date: '2024-01-03', marketValue: '199500' },
  ];
  const flows = [
    { date: '2024-01-03', amount: '100000' },
    { date: '2023-12-29', amount: '5' }, // outside the range: ignored
  ];

  it('they differ, and both are exact', () => {
    // Time-weighted:
    //   r1 = (110,000 - 100,000) / 100,000 = 0.10
    //   r2 = (199,500 - 110,000 - 100,000) / (110,000 + 1 * 100,000) = -10,500 / 210,000 = -0.05
    //   TWR = 1.10 * 0.95 - 1 = 1.045 - 1 = 0.045
    const { periods } = dailySeries(valuations, flows);
    expect(periods.map((p) => p.returnValue)).toEqual(['0.100000000000', '-0.050000000000']);
    expect(linkReturns(periods.map((p) => p.returnValue))).toEqual({ value: '0.045000000000', nullReason: null });

    // Money-weighted, one Modified Dietz over 01-01 -> 01-03: CD = 2,
    //   flow on 01-03 start_of_day: days = 3 - 3 + 1 = 1, w = 1/2, weighted = 50,000
    //   numerator = 199,500 - 100,000 - 100,000 = -500
    //   denominator = 100,000 + 50,000 = 150,000
    //   MWR = -500 / 150,000 = -1/300 = -0.003333333333|33 -> -0.003333333333
    // Most money arrived just before the loss, so the investor lost money (MWR < 0) while
    // the manager's time-weighted record is +4.5 %.
    expect(periodModifiedDietz(valuations, flows, '2024-01-01', '2024-01-03')).toEqual({
      startDate: '2024-01-01',
      endDate: '2024-01-03',
      beginValue: '100000.0000',
      endValue: '199500.0000',
      netFlow: '100000.0000',
      weightedFlow: '50000.0000',
      denominator: '150000.0000',
      returnValue: '-0.003333333333',
      nullReason: null,
    });
  });

  it('pins the range to the first and last valuation dates inside it', () => {
    const wide = periodModifiedDietz(valuations, flows, '2023-12-30', '2024-01-05');
    expect([wide.startDate, wide.endDate, wide.returnValue]).toEqual(['2024-01-01', '2024-01-03', '-0.003333333333']);
    // 01-02 -> 01-03 alone equals the second daily sub-period (-0.05).
    expect(periodModifiedDietz(valuations, flows, '2024-01-02', '2024-01-03').returnValue).toBe('-0.050000000000');
    expect(() => periodModifiedDietz(valuations, flows, '2024-01-03', '2024-01-04')).toThrow(/at least two valuation dates/);
    expect(() => periodModifiedDietz(valuations, flows, '2024-01-03', '2024-01-01')).toThrow(/must be after/);
  });
});

describe('classifyDifference', () => {
  const classify = (custodian: string | null | undefined, computed: string | null | undefined) => classifyDifference({ custodian, computed });

  it('has documented defaults', () => {
    expect(DEFAULT_MATCH_THRESHOLD_BPS).toBe(1);
    expect(DEFAULT_REVIEW_THRESHOLD_BPS).toBe(10);
  });

  it('is inclusive at the thresholds', () => {
    // (0.0101 - 0.0100) * 10,000 = 1 bps -> match (<= 1)
    expect(classify('0.0100', '0.0101')).toMatchObject({ differenceBps: '1.00000000', status: 'match' });
    // (0.0099 - 0.0100) * 10,000 = -1 bps, |-1| = 1 -> match
    expect(classify('0.0100', '0.0099')).toMatchObject({ differenceBps: '-1.00000000', status: 'match' });
    // (0.010100000001 - 0.0100) * 10,000 = 1.00000001 bps -> review
    expect(classify('0.0100', '0.010100000001')).toMatchObject({ differenceBps: '1.00000001', status: 'review' });
    // (0.0110 - 0.0100) * 10,000 = 10 bps -> review (<= 10)
    expect(classify('0.0100', '0.0110')).toMatchObject({ differenceBps: '10.00000000', status: 'review' });
    // (0.011000000001 - 0.0100) * 10,000 = 10.00000001 bps -> investigate
    expect(classify('0.0100', '0.011000000001')).toMatchObject({ differenceBps: '10.00000001', status: 'investigate' });
  });

  it('a sign flip beyond the match threshold is investigate', () => {
    // (-0.0001 - 0.0001) * 10,000 = -2 bps: would be review, but the signs disagree.
    const flip = classify('0.0001', '-0.0001');
    expect(flip).toMatchObject({ differenceBps: '-2.00000000', status: 'investigate' });
    expect(flip.reason).toBe('Opposite signs: the custodian reports 0.0001 and the computed return is -0.0001 (2.00 bps apart)');
    // (-0.00004 - 0.00004) * 10,000 = -0.8 bps: within the match threshold, noise around zero.
    expect(classify('0.00004', '-0.00004')).toMatchObject({ differenceBps: '-0.80000000', status: 'match' });
    // Zero is neither sign: (-0.0002 - 0) * 10,000 = -2 bps -> review.
    expect(classify('0', '-0.0002')).toMatchObject({ differenceBps: '-2.00000000', status: 'review' });
  });

  it('a missing side is investigate with no difference', () => {
    expect(classify(null, '0.01')).toEqual({ differenceBps: null, status: 'investigate', reason: 'The custodian return is missing' });
    expect(classify('0.01', undefined)).toEqual({ differenceBps: null, status: 'investigate', reason: 'The computed return is missing' });
    expect(classify(null, null)).toEqual({ differenceBps: null, status: 'investigate', reason: 'Both returns are missing' });
  });

  it('gives its reason as a sentence a user can read, never a formula', () => {
    expect(classify('0.0100', '0.0100').reason).toBe('Within the match threshold: 0.00 bps apart (threshold 1 bps)');
    expect(classify('0.0100', '0.01075').reason).toBe('Over the match threshold, within the review threshold: 7.50 bps apart (thresholds 1 bps and 10 bps)');
    expect(classify('0.0100', '0.0125').reason).toBe('Over the review threshold: 25.00 bps apart (threshold 10 bps)');
    // Just over a threshold never reads as equal to it.
    expect(classify('0.0100', '0.011000000001').reason).toBe('Over the review threshold: 10.00000001 bps apart (threshold 10 bps)');
    expect(classify('0.0100', '0.0110').reason).toBe('Over the match threshold, within the review threshold: 10.00 bps apart (thresholds 1 bps and 10 bps)');
  });

  it('takes per-organization thresholds', () => {
    // 20 bps: investigate under the defaults, review under (5, 25).
    expect(classify('0.0100', '0.0120').status).toBe('investigate');
    expect(classifyDifference({ custodian: '0.0100', computed: '0.0120', matchThresholdBps: 5, reviewThresholdBps: '25' }).status).toBe('review');
    expect(() => classifyDifference({ custodian: 0, computed: 0, matchThresholdBps: 10, reviewThresholdBps: 5 })).toThrow(RangeError);
    expect(() => classifyDifference({ custodian: 0, computed: 0, matchThresholdBps: -1 })).toThrow(RangeError);
  });
});
