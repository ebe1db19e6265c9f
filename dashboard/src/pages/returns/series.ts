import type { DailyReturn } from './queries.ts';
import { toNumber } from './format.ts';

/** A daily return with what the chart and the table derive from it. */
export interface ReturnDay {
  date: string;
  startDate: string;
  beginValue: string;
  endValue: string;
  netFlow: number;
  netFlowText: string;
  value: number | null;
  /** prod(1 + r) - 1 up to this day (the service's cumulativeReturn); null from the first undefined daily return on. */
  cumulative: number | null;
  nullReason: string | null;
}

/** The daily returns as the chart and the tables use them; the cumulative line is the service's own linking. */
export function toSeries(days: DailyReturn[]): ReturnDay[] {
  return days.map((day) => ({
    date: day.date,
    startDate: day.startDate,
    beginValue: day.beginValue,
    endValue: day.endValue,
    netFlow: toNumber(day.netFlow) ?? 0,
    netFlowText: day.netFlow,
    value: toNumber(day.returnValue),
    cumulative: toNumber(day.cumulativeReturn),
    nullReason: day.nullReason,
  }));
}
