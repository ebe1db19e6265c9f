/**
 * An independent, exact re-implementation of the returns math of DESIGN.md for tests: rationals
 * over BigInt (no binary floats, no decimal.js), the CSV parsed by csv-parse. It shares no code
 * with src/returns, so a test comparing the two can catch a mistake in either.
 *
 *   R = (EMV - BMV - sum CF_i) / (BMV + sum w_i * CF_i),  w_i = (CD - D_i) / CD
 *
 * CD: calendar days of the sub-period (d0, d1]; D_i: days from the sub-period's start (the start
 * of day d0 + 1) to flow i: D - d0 - 1 for a start-of-day flow dated D, D - d0 for an
 * end-of-day one. Default timing: inflows start of day, outflows end of day.
 */
import { parse } from 'csv-parse/sync';

export class Rational {
  readonly n: bigint;
  readonly d: bigint;

  constructor(n: bigint, d: bigint = 1n) {
    if (d === 0n) throw new RangeError('division by zero');
    if (d < 0n) {
      n = -n;
      d = -d;
    }
    const g = gcd(n < 0n ? -n : n, d);
    this.n = n / g;
    this.d = d / g;
  }

  static parse(text: string): Rational {
    const match = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
    if (!match) throw new RangeError(`not a decimal: ${text}`);
    const fraction = match[3] ?? '';
    const n = BigInt(match[2] + fraction) * (match[1] === '-' ? -1n : 1n);
    return new Rational(n, 10n ** BigInt(fraction.length));
  }

  static of(value: number): Rational {
    if (!Number.isInteger(value)) throw new RangeError('integers only');
    return new Rational(BigInt(value));
  }

  plus(other: Rational): Rational {
    return new Rational(this.n * other.d + other.n * this.d, this.d * other.d);
  }

  minus(other: Rational): Rational {
    return new Rational(this.n * other.d - other.n * this.d, this.d * other.d);
  }

  times(other: Rational): Rational {
    return new Rational(this.n * other.n, this.d * other.d);
  }

  div(other: Rational): Rational {
    return new Rational(this.n * other.d, this.d * other.n);
  }

  isZero(): boolean {
    return this.n === 0n;
  }

  sign(): number {
    return this.n === 0n ? 0 : this.n < 0n ? -1 : 1;
  }

  abs(): Rational {
    return new Rational(this.n < 0n ? -this.n : this.n, this.d);
  }

  compare(other: Rational): number {
    return this.minus(other).sign();
  }

  /** Rounded half to even at `dp` decimal places, e.g. "-0.001902716800"; zero has no sign. */
  toFixed(dp: number): string {
    const scale = 10n ** BigInt(dp);
    const negative = this.n < 0n;
    const a = (negative ? -this.n : this.n) * scale;
    let q = a / this.d;
    const r = a % this.d;
    if (2n * r > this.d || (2n * r === this.d && q % 2n === 1n)) q += 1n;
    const digits = q.toString().padStart(dp + 1, '0');
    const text = dp === 0 ? digits : `${digits.slice(0, -dp)}.${digits.slice(-dp)}`;
    return negative && q !== 0n ? `-${text}` : text;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

export function dayNumber(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return Date.UTC(y, m - 1, d) / 86_400_000;
}

export interface SampleEntity {
  accountCode: string;
  entityName: string;
  valuations: { date: string; value: Rational }[];
  flows: { date: string; amount: Rational; timing: 'start_of_day' | 'end_of_day'; description: string | null }[];
}

/** The pnl sample (account_code,entity_name,date,market_value,cash_flow,flow_timing,description) by entity. */
export function parsePnl(csv: string): Map<string, SampleEntity> {
  const rows = parse(csv, { columns: true, skip_empty_lines: true, trim: true }) as Record<string, string>[];
  const entities = new Map<string, SampleEntity>();
  for (const row of rows) {
    let entity = entities.get(row.entity_name);
    if (!entity) {
      entity = { accountCode: row.account_code, entityName: row.entity_name, valuations: [], flows: [] };
      entities.set(row.entity_name, entity);
    }
    if (row.market_value) entity.valuations.push({ date: row.date, value: Rational.parse(row.market_value) });
    if (row.cash_flow) {
      const amount = Rational.parse(row.cash_flow);
      const timing = (row.flow_timing || (amount.sign() < 0 ? 'end_of_day' : 'start_of_day')) as 'start_of_day' | 'end_of_day';
      entity.flows.push({ date: row.date, amount, timing, description: row.description || null });
    }
  }
  for (const entity of entities.values()) entity.valuations.sort((a, b) => dayNumber(a.date) - dayNumber(b.date));
  return entities;
}

/** The performance sample (account_code,entity_name,date,return,return_unit), returns as fractions. */
export function parsePerformance(csv: string): { accountCode: string; entityName: string; date: string; value: Rational }[] {
  const rows = parse(csv, { columns: true, skip_empty_lines: true, trim: true }) as Record<string, string>[];
  return rows.map((row) => {
    const raw = Rational.parse(row.return);
    const unit = row.return_unit;
    const value = unit === 'percent' ? raw.div(Rational.of(100)) : unit === 'bps' ? raw.div(Rational.of(10_000)) : raw;
    return { accountCode: row.account_code, entityName: row.entity_name, date: row.date, value };
  });
}

export interface ExactSubPeriod {
  startDate: string;
  date: string;
  beginValue: Rational;
  endValue: Rational;
  netFlow: Rational;
  weightedFlow: Rational;
  returnValue: Rational | null;
}

/** Modified Dietz between two valuations, per DESIGN.md. */
export function modifiedDietz(entity: SampleEntity, startDate: string, endDate: string): ExactSubPeriod {
  const d0 = dayNumber(startDate);
  const d1 = dayNumber(endDate);
  const begin = entity.valuations.find((v) => v.date === startDate)!.value;
  const end = entity.valuations.find((v) => v.date === endDate)!.value;
  const cd = Rational.of(d1 - d0);
  let netFlow = Rational.of(0);
  let weightedFlow = Rational.of(0);
  for (const flow of entity.flows) {
    const day = dayNumber(flow.date);
    if (day <= d0 || day > d1) continue;
    const di = Rational.of(flow.timing === 'start_of_day' ? day - d0 - 1 : day - d0);
    const weight = cd.minus(di).div(cd);
    netFlow = netFlow.plus(flow.amount);
    weightedFlow = weightedFlow.plus(weight.times(flow.amount));
  }
  const denominator = begin.plus(weightedFlow);
  const returnValue = denominator.sign() <= 0 ? null : end.minus(begin).minus(netFlow).div(denominator);
  return { startDate, date: endDate, beginValue: begin, endValue: end, netFlow, weightedFlow, returnValue };
}

/** One sub-period per pair of consecutive valuation dates. */
export function dailyReturns(entity: SampleEntity): ExactSubPeriod[] {
  const periods: ExactSubPeriod[] = [];
  for (let i = 1; i < entity.valuations.length; i++) {
    periods.push(modifiedDietz(entity, entity.valuations[i - 1].date, entity.valuations[i].date));
  }
  return periods;
}

/** prod(1 + r) - 1 of the given (already rounded) returns. */
export function link(returns: Rational[]): Rational {
  return returns.reduce((product, r) => product.times(r.plus(Rational.of(1))), Rational.of(1)).minus(Rational.of(1));
}
