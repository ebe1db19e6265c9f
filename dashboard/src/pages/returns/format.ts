/** Number formats of the returns page. The API sends returns as decimal fractions in strings. */

const money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const signedMoney = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: 'exceptZero' });
const shortDate = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function toNumber(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

/** A fraction as a signed percentage, e.g. "0.001874" → "+0.1874 %". */
export function signedPercent(fraction: string | number | null | undefined, digits = 4): string {
  const value = typeof fraction === 'number' ? fraction : toNumber(fraction);
  if (value === null) return '—';
  const text = (value * 100).toFixed(digits);
  return `${value > 0 ? '+' : ''}${text} %`;
}

export function signedBps(bps: string | null): string {
  const value = toNumber(bps);
  if (value === null) return '—';
  return `${value > 0 ? '+' : ''}${value.toFixed(2)}`;
}

export function formatMoney(value: string | number | null | undefined, signed = false): string {
  const number = typeof value === 'number' ? value : toNumber(value);
  if (number === null) return '—';
  return (signed ? signedMoney : money).format(number);
}

/** "Mar 4" for chart axes (calendar dates, no time zone). */
export function formatShortDate(isoDate: string): string {
  return shortDate.format(new Date(`${isoDate}T00:00:00Z`));
}

/** ISO date plus `days` (negative to go back). */
export function addDays(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000);
}
