import type { BenchmarkLevelsData } from './analytics-queries.ts';
import { toNumber } from './format.ts';
import type { ReturnDay } from './series.ts';

/** The benchmark's line on the chart: its cumulative return at each charted day. */
export interface BenchmarkLine {
  name: string;
  /** the level the cumulative return is measured from (the latest on or before the chart's first close) */
  baseDate: string;
  /** per charted day: the cumulative return at the latest level on or before it (an index does not publish on holidays); null before any */
  values: (number | null)[];
  /** the last day's value */
  last: number | null;
}

/** The benchmark's points laid on the chart's days; null when no benchmark is assigned (or nothing to chart). */
export function benchmarkSeries(days: ReturnDay[], levels: BenchmarkLevelsData | undefined): BenchmarkLine | null {
  if (!levels?.benchmark || !levels.baseDate || levels.points.length === 0 || days.length === 0) return null;
  const points = levels.points;
  let next = 0;
  let current: number | null = null;
  const values = days.map((day) => {
    while (next < points.length && points[next].date <= day.date) current = toNumber(points[next++].cumulativeReturn);
    return current;
  });
  return { name: levels.benchmark, baseDate: levels.baseDate, values, last: values[values.length - 1] ?? null };
}
