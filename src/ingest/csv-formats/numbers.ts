/**
 * Numbers: plain decimals `[+|-]digits[.digits]`; no thousands separators, decimal commas,
 * currency symbols, percent signs, exponents, parentheses, spaces, NaN or Infinity. Digit limits
 * follow the database columns so that nothing is silently rounded or overflows on insert:
 *   money (market_value, cash_flow): <= 16 integer digits, <= 4 fraction digits (NUMERIC(20,4));
 *   returns, after conversion to a fraction: <= 8 integer digits, <= 12 fraction digits
 *   (NUMERIC(20,12)); so a `percent` value may have up to 10 fraction digits and a `bps` value up to 8;
 *   fx rates: > 0, <= 12 integer digits, <= 12 fraction digits (NUMERIC(24,12));
 *   benchmark levels: > 0, <= 16 integer digits, <= 8 fraction digits (NUMERIC(24,8)).
 * Trailing zeros beyond the limit are accepted (no information is lost); any other extra digit is
 * an error, never rounded.
 *
 * Handled as decimal strings only (digit counting and canonical form on the text, decimal.js for
 * the exact unit conversion), never binary floats.
 */
import { Decimal } from 'decimal.js';
import { LIMITS } from './columns.ts';
import type { ReturnUnit } from './types.ts';

/** Local constructor: enough precision that the unit conversion is exact, plain notation out. */
const Dec = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -1000, toExpPos: 1000 });

const PLAIN_DECIMAL = /^[+-]?\d+(?:\.\d+)?$/;

/**
 * A validated plain decimal split into parts: `integer` without leading zeros,
 * `fraction` without trailing zeros, so their lengths are the significant digit counts.
 */
export interface PlainNumber {
  negative: boolean;
  integer: string;
  fraction: string;
}

type NumberResult = { ok: true; value: PlainNumber } | { ok: false; message: string };

function decompose(text: string): PlainNumber {
  let body = text;
  let negative = false;
  if (body[0] === '-' || body[0] === '+') {
    negative = body[0] === '-';
    body = body.slice(1);
  }
  const dot = body.indexOf('.');
  const integer = (dot < 0 ? body : body.slice(0, dot)).replace(/^0+/, '');
  const fraction = dot < 0 ? '' : body.slice(dot + 1).replace(/0+$/, '');
  return { negative: negative && (integer !== '' || fraction !== ''), integer, fraction };
}

/** Zero, whatever its sign or zeros ("-0.00"). */
export function isZero(n: PlainNumber): boolean {
  return n.integer === '' && n.fraction === '';
}

/** Canonical plain string: no plus sign, leading or trailing zeros, exponent or "-0". */
export function canonical(n: PlainNumber): string {
  return `${n.negative ? '-' : ''}${n.integer || '0'}${n.fraction ? `.${n.fraction}` : ''}`;
}

/** Parse a plain decimal; explains the common wrong formats. Does not apply digit limits. */
export function parsePlainDecimal(text: string): NumberResult {
  if (text.length > LIMITS.numberTextLength) {
    return { ok: false, message: `number is too long (${text.length} characters)` };
  }
  if (PLAIN_DECIMAL.test(text)) return { ok: true, value: decompose(text) };
  const shown = JSON.stringify(text);
  let why = 'expected a plain decimal such as -1234.56';
  if (/^[+-]?(nan|inf(inity)?)$/i.test(text)) why = 'NaN and Infinity are not numbers';
  else if (/^[+-]?(\d+\.?\d*|\.\d+)e[+-]?\d+$/i.test(text)) why = 'exponent notation is not allowed';
  else if (/[$€£¥₹]|\b(usd|eur|gbp|chf|jpy)\b/i.test(text)) why = 'currency symbols are not allowed';
  else if (text.includes('%')) why = 'percent signs are not allowed (state the unit in return_unit)';
  else if (/^\(.*\)$/.test(text)) why = 'parentheses for negatives are not allowed; use a leading minus';
  else if (text.includes(',')) why = 'commas are not allowed (no thousands separators or decimal commas)';
  else if (/\d[\s'_\u00a0\u202f]\d/.test(text)) why = 'digit group separators are not allowed';
  else if (/^[+-]?\.\d+$/.test(text) || /^[+-]?\d+\.$/.test(text)) why = 'a decimal point needs digits on both sides';
  return { ok: false, message: `${shown} is not a valid number: ${why}` };
}

/** Digit limits of a DECIMAL column: integer digits (precision - scale) and fraction digits (scale). */
export interface DigitLimits {
  integerDigits: number;
  fractionDigits: number;
  /** what the never-rounded remark names ("amounts", "rates") */
  noun: string;
}

const MONEY: DigitLimits = { integerDigits: LIMITS.moneyIntegerDigits, fractionDigits: LIMITS.moneyFractionDigits, noun: 'amounts' };

/** A plain decimal within `limits`; extra digits are an error, never rounded. */
function parseWithin(text: string, limits: DigitLimits): NumberResult {
  const parsed = parsePlainDecimal(text);
  if (!parsed.ok) return parsed;
  const digits = { integer: parsed.value.integer.length, fraction: parsed.value.fraction.length };
  if (digits.integer > limits.integerDigits) {
    return { ok: false, message: `${JSON.stringify(text)} has more than ${limits.integerDigits} integer digits` };
  }
  if (digits.fraction > limits.fractionDigits) {
    return {
      ok: false,
      message: `${JSON.stringify(text)} has more than ${limits.fractionDigits} decimal places (${limits.noun} are not rounded)`,
    };
  }
  return parsed;
}

export function parseMoney(text: string): NumberResult {
  return parseWithin(text, MONEY);
}

/** A positive (> 0) plain decimal within `limits`, as a canonical string. */
export function parsePositive(text: string, limits: DigitLimits): { ok: true; value: string } | { ok: false; message: string } {
  const parsed = parseWithin(text, limits);
  if (!parsed.ok) return parsed;
  if (parsed.value.negative || isZero(parsed.value)) return { ok: false, message: `${JSON.stringify(text)} must be greater than zero` };
  return { ok: true, value: canonical(parsed.value) };
}

const UNIT_DIVISORS: Record<ReturnUnit, Decimal> = {
  fraction: new Dec(1),
  percent: new Dec(100),
  bps: new Dec(10_000),
};

/**
 * A return in `unit` as a canonical fraction string, or an error message.
 * Exact: the divisors are powers of ten and the precision exceeds any accepted input.
 */
export function normaliseReturn(text: string, unit: ReturnUnit): { ok: true; value: string } | { ok: false; message: string } {
  const parsed = parsePlainDecimal(text);
  if (!parsed.ok) return parsed;
  const fraction = decompose(new Dec(canonical(parsed.value)).div(UNIT_DIVISORS[unit]).toFixed());
  const digits = { integer: fraction.integer.length, fraction: fraction.fraction.length };
  if (digits.integer > LIMITS.returnIntegerDigits) {
    return { ok: false, message: `${JSON.stringify(text)} ${unit} is out of range (more than ${LIMITS.returnIntegerDigits} integer digits as a fraction)` };
  }
  if (digits.fraction > LIMITS.returnFractionDigits) {
    const allowed = LIMITS.returnFractionDigits - (unit === 'percent' ? 2 : unit === 'bps' ? 4 : 0);
    return {
      ok: false,
      message: `${JSON.stringify(text)} ${unit} has too many decimal places: at most ${allowed} for ${unit} (${LIMITS.returnFractionDigits} as a fraction); returns are not rounded`,
    };
  }
  return { ok: true, value: canonical(fraction) };
}
