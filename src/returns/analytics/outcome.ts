/**
 * Typed errors for the analytics modules. A request the data cannot answer (a missing FX rate, a
 * date range the wrong way round) comes back as a value the service turns into a 4xx, not as an
 * exception thrown from deep inside the arithmetic. Malformed input (not a date, not a number,
 * an unsorted series) is a caller bug and throws RangeError, as in ../dietz.ts.
 */

export type AnalyticsError =
  | { code: 'reversed_dates'; message: string; from: string; to: string }
  | { code: 'as_of_before_inception'; message: string; asOf: string; inceptionDate: string }
  | { code: 'flow_outside_period'; message: string; date: string }
  | { code: 'missing_fx_rate'; message: string; pair: string; dates: string[] }
  | { code: 'missing_benchmark_level'; message: string; dates: string[] };

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: AnalyticsError };

export const succeed = <T>(value: T): Outcome<T> => ({ ok: true, value });

export const fail = <T>(error: AnalyticsError): Outcome<T> => ({ ok: false, error });

export function reversedDates<T>(from: string, to: string): Outcome<T> {
  return fail({ code: 'reversed_dates', message: `the end date ${to} is before the start date ${from}`, from, to });
}

/** "2024-01-02" or "2024-01-02, 2024-01-03 and 4 more": an error names the dates without growing without bound. */
export function listDates(dates: readonly string[]): string {
  const shown = dates.slice(0, 3).join(', ');
  return dates.length > 3 ? `${shown} and ${dates.length - 3} more` : shown;
}
