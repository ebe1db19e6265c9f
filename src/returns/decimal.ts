/**
 * Decimal settings and output formatting shared by the returns math (./dietz.ts, ./analytics):
 * precision 34, ROUND_HALF_EVEN, returns 12 dp, money 4 dp, rounding only at the edge.
 */
// Named import: under NodeNext, decimal.js's CommonJS-typed .d.ts makes the default import the
// module namespace (no .clone / Decimal.Value); the named export exists in both types and decimal.mjs.
import { Decimal } from 'decimal.js';

/** Local Decimal constructor so global Decimal settings elsewhere cannot change our results. */
export const Dec = Decimal.clone({ precision: 34, rounding: Decimal.ROUND_HALF_EVEN });

const MONEY_DP = 4;
const RETURN_DP = 12;

/** A finite decimal or a RangeError naming the input: bad numbers are caller bugs. */
export function toDecimal(value: Decimal.Value, label: string): Decimal {
  let parsed: Decimal;
  try {
    parsed = new Dec(value);
  } catch {
    throw new RangeError(`${label} is not a decimal number: ${String(value)}`);
  }
  if (!parsed.isFinite()) throw new RangeError(`${label} must be finite, got ${String(value)}`);
  return parsed;
}

/** Fixed-point string; a value that rounds to zero prints without a minus sign. */
export function fixed(value: Decimal, dp: number): string {
  const rounded = value.toDecimalPlaces(dp, Decimal.ROUND_HALF_EVEN);
  return (rounded.isZero() ? new Dec(0) : rounded).toFixed(dp);
}

/** A return (fraction) for output: 12 dp. */
export const formatReturn = (value: Decimal): string => fixed(value, RETURN_DP);

/** Money for output: 4 dp. */
export const formatMoney = (value: Decimal): string => fixed(value, MONEY_DP);

/**
 * An intermediate kept at full precision (all 34 significant digits, plain notation): growth
 * factors and converted amounts are stored or fed into further arithmetic, and rounding them
 * would put rounding error into every return computed from them.
 */
export const formatExact = (value: Decimal): string => value.toFixed();
