/** Dates, text values and currency codes, as the formats check them. */
import { LIMITS } from './columns.ts';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD`, a real calendar date, years 1900..9999; the problem, or null. */
export function checkDate(text: string): string | null {
  const m = ISO_DATE.exec(text);
  if (!m) return `${JSON.stringify(text)} is not a date in YYYY-MM-DD format`;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < LIMITS.minYear || year > LIMITS.maxYear) {
    return `${text}: year must be between ${LIMITS.minYear} and ${LIMITS.maxYear}`;
  }
  if (month < 1 || month > 12) return `${text} is not a real calendar date (month ${m[2]})`;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (day < 1 || day > monthDays) return `${text} is not a real calendar date`;
  return null;
}

// C0 controls except tab, DEL, C1 controls. Line breaks are allowed only in description.
const CONTROL_CHARS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;
const CONTROL_CHARS_NO_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Not longer than `maxLength`, no control characters; the problem, or null. */
export function checkText(text: string, label: string, maxLength: number, allowLineBreaks = false): string | null {
  if (text.length > maxLength) return `${label} is longer than ${maxLength} characters`;
  if ((allowLineBreaks ? CONTROL_CHARS_NO_BREAKS : CONTROL_CHARS).test(text)) {
    return `${label} contains control characters`;
  }
  return null;
}

const CURRENCY_CODE = /^[A-Za-z]{3}$/;

/** An ISO 4217 currency code: three letters, any case (stored upper case); the problem, or null. */
export function checkCurrency(text: string, label: string): string | null {
  return CURRENCY_CODE.test(text) ? null : `${label} ${JSON.stringify(text)} is not a currency code: expected three letters (ISO 4217, e.g. EUR)`;
}
