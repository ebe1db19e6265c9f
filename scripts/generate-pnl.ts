/**
 * Generates a valid `pnl` CSV file for benchmarks and load tests.
 *
 *   tsx scripts/generate-pnl.ts --rows 100000 --accounts 20 --out /tmp/big.csv [--seed N] [--start YYYY-MM-DD]
 *
 * Deterministic: the same arguments give the same bytes (mulberry32 PRNG seeded
 * with --seed, default 1). Business days from --start (default 2020-01-01,
 * weekends skipped); each day every account gets a valuation row (random-walk
 * market value, 2 decimals) and now and then a flow: on the valuation row or on
 * a row of its own, with start_of_day, end_of_day or the default timing. Exactly
 * --rows data rows are written (plus the header), streamed to disk with
 * backpressure, so memory use does not grow with --rows.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { mulberry32 } from '../src/util/prng.ts';

export interface GenerateOptions {
  rows: number;
  accounts: number;
  seed?: number;
  /** first business day on or after this date, YYYY-MM-DD */
  start?: string;
}

export const PNL_HEADER = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description';

export { mulberry32 };

const ENTITY_WORDS = ['Harbor', 'Northwind', 'Summit', 'Cedar', 'Atlas', 'Meridian', 'Bluewater', 'Granite', 'Aurora', 'Keystone'];
const ENTITY_KINDS = ['Growth Fund LP', 'Family Trust', 'Pension Plan', 'Endowment', 'Income Fund', 'Foundation'];
const FLOW_DESCRIPTIONS = {
  in: ['Subscription', 'Capital call', 'Contribution', 'Wire in'],
  out: ['Redemption', 'Distribution', 'Withdrawal', 'Tax payment, annual'],
};

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Money with 2 decimals from a float, as a plain string (no exponent, no "-0.00"). */
function money(value: number): string {
  const s = (Math.round(value * 100) / 100).toFixed(2);
  return s === '-0.00' ? '0.00' : s;
}

function isoDate(dayNumber: number): string {
  return new Date(dayNumber * 86_400_000).toISOString().slice(0, 10);
}

/** Yields the data lines (without line breaks) of a generated pnl file. */
export function* generatePnlLines(options: GenerateOptions): Generator<string> {
  const { rows, accounts } = options;
  if (!Number.isInteger(rows) || rows < 0) throw new RangeError('rows must be a non-negative integer');
  if (!Number.isInteger(accounts) || accounts < 1) throw new RangeError('accounts must be a positive integer');
  const start = options.start ?? '2020-01-01';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || Number.isNaN(Date.parse(`${start}T00:00:00Z`))) {
    throw new RangeError(`start must be a YYYY-MM-DD date, got ${start}`);
  }
  const random = mulberry32(options.seed ?? 1);
  const normal = (): number => {
    // Box-Muller
    const u = 1 - random();
    const v = random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };

  const accts = Array.from({ length: accounts }, (_, i) => {
    const code = `ACC-${String(i + 1).padStart(5, '0')}`;
    const name = `${ENTITY_WORDS[i % ENTITY_WORDS.length]} ${ENTITY_KINDS[Math.floor(i / ENTITY_WORDS.length) % ENTITY_KINDS.length]} ${String(i + 1).padStart(5, '0')}`;
    return {
      code,
      name: csvField(name),
      marketValue: Math.round((500_000 + random() * 50_000_000) * 100) / 100,
      drift: 0.0002 + random() * 0.0003,
      volatility: 0.004 + random() * 0.012,
    };
  });

  let day = Date.parse(`${start}T00:00:00Z`) / 86_400_000;
  let written = 0;
  while (written < rows) {
    const weekday = new Date(day * 86_400_000).getUTCDay();
    if (weekday === 0 || weekday === 6) {
      day++;
      continue;
    }
    const date = isoDate(day);
    if (date > '9999-12-31') throw new RangeError('the date range ran past 9999-12-31: use more accounts for this many rows');
    for (const a of accts) {
      if (written >= rows) break;
      let flow = 0;
      let timing = '';
      if (random() < 0.04) {
        const size = a.marketValue * (0.005 + random() * 0.08);
        flow = random() < 0.55 ? size : -size;
        const t = random();
        timing = t < 0.3 ? 'start_of_day' : t < 0.6 ? 'end_of_day' : '';
      }
      const r = a.drift + a.volatility * normal();
      const effective = timing || (flow > 0 ? 'start_of_day' : 'end_of_day');
      const startFlow = effective === 'start_of_day' ? flow : 0;
      // clamped so a long random walk stays far inside NUMERIC(20,4)
      a.marketValue = Math.min(1e13, Math.max(1_000, (a.marketValue + startFlow) * (1 + r) + (flow - startFlow)));

      const flowText = flow !== 0 ? money(flow) : '';
      const description = flow === 0 ? '' : csvField((flow > 0 ? FLOW_DESCRIPTIONS.in : FLOW_DESCRIPTIONS.out)[Math.floor(random() * 4)]);
      // a flow on its own row needs room for two rows
      if (flowText !== '' && flowText !== '0.00' && random() < 0.5 && written + 2 <= rows) {
        yield `${a.code},${a.name},${date},${money(a.marketValue)},,,`;
        yield `${a.code},${a.name},${date},,${flowText},${timing},${description}`;
        written += 2;
      } else if (flowText !== '' && flowText !== '0.00') {
        yield `${a.code},${a.name},${date},${money(a.marketValue)},${flowText},${timing},${description}`;
        written++;
      } else {
        yield `${a.code},${a.name},${date},${money(a.marketValue)},,,`;
        written++;
      }
    }
    day++;
  }
}

/** Writes a generated file to `out`, streaming with backpressure. Resolves with the data row count. */
export async function writePnlFile(out: string, options: GenerateOptions): Promise<number> {
  const stream = createWriteStream(out, { encoding: 'utf8' });
  const closed = once(stream, 'close');
  let count = 0;
  try {
    let batch = `${PNL_HEADER}\n`;
    for (const line of generatePnlLines(options)) {
      batch += `${line}\n`;
      count++;
      if (batch.length >= 64 * 1024) {
        if (!stream.write(batch)) await once(stream, 'drain');
        batch = '';
      }
    }
    if (batch) stream.write(batch);
  } catch (err) {
    stream.destroy();
    throw err;
  }
  stream.end();
  await closed;
  return count;
}

function parseArgs(argv: string[]): { out: string } & GenerateOptions {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    if (key === '--help' || key === '-h') usage(0);
    if (!key.startsWith('--')) usage(1, `unexpected argument ${key}`);
    const eq = key.indexOf('=');
    if (eq > 0) args.set(key.slice(2, eq), key.slice(eq + 1));
    else {
      const value = argv[++i];
      if (value === undefined) usage(1, `missing value for ${key}`);
      args.set(key.slice(2), value);
    }
  }
  for (const k of args.keys()) if (!['rows', 'accounts', 'out', 'seed', 'start'].includes(k)) usage(1, `unknown option --${k}`);
  const int = (name: string, fallback?: number): number => {
    const raw = args.get(name);
    if (raw === undefined) {
      if (fallback === undefined) usage(1, `--${name} is required`);
      return fallback as number;
    }
    if (!/^\d+$/.test(raw)) usage(1, `--${name} must be a non-negative integer`);
    return Number(raw);
  };
  const out = args.get('out');
  if (!out) usage(1, '--out is required');
  return { out: out as string, rows: int('rows'), accounts: int('accounts', 20), seed: int('seed', 1), start: args.get('start') };
}

function usage(code: number, message?: string): never {
  if (message) process.stderr.write(`generate-pnl: ${message}\n`);
  process.stderr.write('usage: tsx scripts/generate-pnl.ts --rows N [--accounts 20] --out FILE [--seed 1] [--start 2020-01-01]\n');
  process.exit(code);
}

async function main(): Promise<void> {
  const { out, ...options } = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const count = await writePnlFile(out, options);
  process.stderr.write(`wrote ${count} rows for ${options.accounts} accounts to ${out} in ${Date.now() - started} ms\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`generate-pnl: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
