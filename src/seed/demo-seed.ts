/**
 * Demo data for a first start on the embedded database (SEED_DEMO_DATA, default on without
 * DATABASE_URL), so that a new user can run every README example at once.
 *
 * `seedDemoData` does nothing when any user exists (with `onlyIntoEmptyDatabase: false`, used by
 * `npm run cli -- seed:demo`, it seeds beside existing users). Otherwise it creates
 *   - organization "Demo Capital" with the admin `admin@demo.local` (role admin, random password)
 *     and an API key 'demo key' with scope `admin` for them;
 *   - organization "Northwind Advisors" with the member `analyst@demo.local` (random password), so
 *     that organization isolation can be tried at once (neither user belongs to the other's org);
 *   - generated pnl and performance files for 5 Demo Capital accounts and 1 Northwind account,
 *     daily on business days over a little more than 13 months ending yesterday (UTC),
 *   - the admin's workspace (stickies, links, transcripts, tasks, news) and a summary generation
 *     of it, queued (the worker writes it once the service listens);
 * and prints the credentials ONCE in a framed block (they are never logged). The service hands
 * them to `onCredentials` instead and prints the block once it listens, with its real address.
 *
 * The files go through the real pipeline: StorageService.upload (blob, UploadedFile row, ingest
 * job) and then IngestService.ingestFile right away, so they are listed as `processed` and their
 * daily returns are computed when the service starts listening. The ingest jobs the uploads
 * queued are later taken by the worker, which skips them as already processed.
 *
 * The generators (`generateDemoData`, `buildPnlCsv`, `buildPerformanceCsv`) are pure and
 * deterministic for a given seed and end date; tests use them directly.
 */
import { randomBytes } from 'node:crypto';
import { seedStickies } from './workspace-stickies.ts';
import { seedLinks } from './workspace-links.ts';
import { seedTranscripts } from './workspace-transcripts.ts';
import { seedTasks } from './workspace-tasks.ts';
import { seedNews } from './workspace-news.ts';
import { Readable } from 'node:stream';
import { Decimal } from 'decimal.js';
import type { Services } from '../services.ts';
import { hashPassword } from '../auth/passwords.ts';
import { IngestService } from '../ingest/ingest-service.ts';
import { dailySeries, DEFAULT_MATCH_THRESHOLD_BPS, DEFAULT_REVIEW_THRESHOLD_BPS, type ComparisonStatus, type FlowTiming } from '../returns/dietz.ts';
import { mulberry32 } from '../util/prng.ts';

// ---------------------------------------------------------------------------
// What is seeded
// ---------------------------------------------------------------------------

export const DEMO_ORG_NAME = 'Demo Capital';
export const DEMO_OTHER_ORG_NAME = 'Northwind Advisors';
export const DEMO_ADMIN_EMAIL = 'admin@demo.local';
export const DEMO_ANALYST_EMAIL = 'analyst@demo.local';
export const DEMO_KEY_NAME = 'demo key';

export interface DemoAccountSpec {
  accountCode: string;
  entityName: string;
  /** market value at the close of the first day; 0 = the account opens empty and is funded later */
  openingValue: number;
  /** for an account opening at 0: the first contribution, this many business days after the start */
  funding?: { afterBusinessDays: number; amount: number };
  /** number of contributions and withdrawals over the period (besides the funding) */
  flowCount: number;
  /** one extra contribution dated on a Saturday (a day without a valuation) */
  weekendFlow?: boolean;
}

export const DEMO_CAPITAL_ACCOUNTS: readonly DemoAccountSpec[] = [
  { accountCode: 'DC-1001', entityName: 'Harbor Growth Fund LP', openingValue: 12_500_000, flowCount: 6 },
  { accountCode: 'DC-1002', entityName: 'Cedar Family Trust, Series A', openingValue: 4_750_000, flowCount: 5, weekendFlow: true },
  { accountCode: 'DC-1003', entityName: 'Summit Pension Plan', openingValue: 38_200_000, flowCount: 7 },
  { accountCode: 'DC-1004', entityName: 'Aurora Endowment', openingValue: 21_000_000, flowCount: 4 },
  {
    accountCode: 'DC-1005',
    entityName: 'Keystone Opportunities Fund',
    openingValue: 0,
    funding: { afterBusinessDays: 30, amount: 5_000_000 },
    flowCount: 4,
  },
];

export const NORTHWIND_ACCOUNTS: readonly DemoAccountSpec[] = [
  { accountCode: 'NW-2001', entityName: 'Northwind Balanced Portfolio', openingValue: 8_300_000, flowCount: 5 },
];

// ---------------------------------------------------------------------------
// Generators (pure)
// ---------------------------------------------------------------------------

export const DEMO_PNL_HEADER = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description';
export const DEMO_PERFORMANCE_HEADER = 'account_code,entity_name,date,return,return_unit';

/** The demo data's PRNG (mulberry32). */
export const seededRandom = mulberry32;

const MS_PER_DAY = 86_400_000;

function toDay(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / MS_PER_DAY;
}

function toDate(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

function isBusinessDay(day: number): boolean {
  const weekday = new Date(day * MS_PER_DAY).getUTCDay();
  return weekday !== 0 && weekday !== 6;
}

/** Yesterday in UTC, YYYY-MM-DD. */
export function yesterdayUtc(now = new Date()): string {
  return toDate(Math.floor(now.getTime() / MS_PER_DAY) - 1);
}

/** Business days (Mon-Fri) from `start` to `end`, both included. */
export function businessDays(start: string, end: string): string[] {
  const days: string[] = [];
  for (let day = toDay(start); day <= toDay(end); day++) if (isBusinessDay(day)) days.push(toDate(day));
  return days;
}

/**
 * The demo period: from a business day a little more than `months` months (plus two weeks)
 * before `endDate` to the last business day on or before `endDate`.
 */
export function demoPeriod(endDate: string, months = 13): { startDate: string; endDate: string } {
  let end = toDay(endDate);
  while (!isBusinessDay(end)) end--;
  const [y, m, d] = endDate.split('-').map(Number);
  // Date.UTC normalises a negative or overflowing month; clamp the day to stay in that month.
  const target = new Date(Date.UTC(y, m - 1 - months, 1));
  const lastOfMonth = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  let start = Date.UTC(target.getUTCFullYear(), target.getUTCMonth(), Math.min(d, lastOfMonth)) / MS_PER_DAY - 14;
  while (!isBusinessDay(start)) start--;
  return { startDate: toDate(start), endDate: toDate(end) };
}

export interface DemoFlow {
  date: string;
  /** signed, 2 decimals: positive = contribution */
  amount: string;
  /** null: the default convention (inflows start of day, outflows end of day) */
  timing: FlowTiming | null;
  description: string;
  /** written on the valuation row of its date (else on a row of its own) */
  onValuationRow: boolean;
}

export interface DemoValuation {
  date: string;
  /** 2 decimals */
  marketValue: string;
}

export interface DemoAccountData {
  spec: DemoAccountSpec;
  valuations: DemoValuation[];
  flows: DemoFlow[];
}

export interface GenerateDemoOptions {
  /** PRNG seed (default 20240101) */
  seed?: number;
  /** last day of data, YYYY-MM-DD (default yesterday, UTC); the last business day on or before it is used */
  endDate?: string;
  /** months of history, at least (default 13) */
  months?: number;
  /** mean daily return (default 0.0005 = 0.05 %) */
  drift?: number;
  /** daily volatility (default 0.008 = 0.8 %) */
  volatility?: number;
}

const INFLOW_DESCRIPTIONS = ['Subscription', 'Capital call', 'Contribution', 'Quarterly subscription'];
const OUTFLOW_DESCRIPTIONS = ['Redemption', 'Distribution', 'Withdrawal', 'Tax payment, annual'];

function money(value: number): string {
  const text = (Math.round(value * 100) / 100).toFixed(2);
  return text === '-0.00' ? '0.00' : text;
}

function normal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * Business days at the end of the demo period that hold one of each account's flows. The
 * dashboard opens an entity on the range of the newest comparisons (ENTITY_SCAN rows, in
 * dashboard/src/pages/returns/queries.ts: 500 over Demo Capital's five accounts, about 100
 * business days each), and its cash flow table shows the flows in that
 * range: with flows drawn anywhere in 13 months, some end dates left an account without any there.
 */
export const RECENT_FLOW_DAYS = 60;

/**
 * One account's valuations (every business day from its first value) and flows, from a random
 * walk. A start-of-day flow is invested for the day: V = (V' + F)(1 + r); an end-of-day flow
 * arrives after the day's move: V = V'(1 + r) + F.
 */
export function generateAccount(
  spec: DemoAccountSpec,
  days: readonly string[],
  random: () => number,
  options: { drift: number; volatility: number },
): DemoAccountData {
  if (days.length < 60) throw new RangeError('need at least 60 business days');
  const drift = options.drift * (0.8 + 0.4 * random());
  const volatility = options.volatility * (0.85 + 0.3 * random());

  // Flow schedule: distinct business-day indexes, away from the first days and the funding day.
  const fundingIndex = spec.openingValue === 0 ? (spec.funding?.afterBusinessDays ?? 20) : -1;
  const firstFlowIndex = Math.max(5, fundingIndex + 5);
  const scheduled = new Map<number, { inflow: boolean; timing: FlowTiming | null; onValuationRow: boolean }>();
  const timings: (FlowTiming | null)[] = ['start_of_day', 'end_of_day', null];
  while (scheduled.size < spec.flowCount) {
    // The first in the last RECENT_FLOW_DAYS, whatever the end date; the others anywhere.
    const from = scheduled.size === 0 ? Math.max(firstFlowIndex, days.length - RECENT_FLOW_DAYS) : firstFlowIndex;
    const index = from + Math.floor(random() * (days.length - from - 1));
    if (scheduled.has(index)) continue;
    scheduled.set(index, {
      inflow: random() < 0.6,
      // every timing variant appears: explicit start, explicit end, default
      timing: timings[scheduled.size % 3],
      onValuationRow: random() < 0.5,
    });
  }
  let weekendIndex = -1;
  if (spec.weekendFlow) {
    // a Monday: the flow is dated on the Saturday before it
    for (let i = Math.floor(days.length / 2); i < days.length; i++) {
      if (new Date(toDay(days[i]) * MS_PER_DAY).getUTCDay() === 1 && !scheduled.has(i)) {
        weekendIndex = i;
        break;
      }
    }
  }

  const valuations: DemoValuation[] = [];
  const flows: DemoFlow[] = [];
  let value = spec.openingValue;
  valuations.push({ date: days[0], marketValue: money(value) });
  for (let i = 1; i < days.length; i++) {
    if (fundingIndex > 0 && i < fundingIndex) continue; // nothing to value before the money arrives
    const date = days[i];
    let startFlow = 0;
    let endFlow = 0;
    if (i === fundingIndex) {
      const amount = spec.funding?.amount ?? 1_000_000;
      flows.push({ date, amount: money(amount), timing: 'start_of_day', description: 'Initial funding', onValuationRow: true });
      startFlow += amount;
    }
    if (i === weekendIndex) {
      const amount = Math.max(1000, Math.round((value * (0.01 + 0.02 * random())) / 1000) * 1000);
      const saturday = toDate(toDay(date) - 2);
      flows.push({ date: saturday, amount: money(amount), timing: null, description: 'Weekend wire', onValuationRow: false });
      startFlow += amount; // in the portfolio for all of Monday
    }
    const planned = scheduled.get(i);
    if (planned && value > 0) {
      const size = Math.max(1000, Math.round((value * (0.01 + 0.07 * random())) / 1000) * 1000);
      const amount = planned.inflow ? size : -Math.min(size, Math.round(value * 0.5));
      const descriptions = amount > 0 ? INFLOW_DESCRIPTIONS : OUTFLOW_DESCRIPTIONS;
      flows.push({
        date,
        amount: money(amount),
        timing: planned.timing,
        description: descriptions[Math.floor(random() * descriptions.length)],
        onValuationRow: planned.onValuationRow,
      });
      const effective = planned.timing ?? (amount > 0 ? 'start_of_day' : 'end_of_day');
      if (effective === 'start_of_day') startFlow += amount;
      else endFlow += amount;
    }
    const r = drift + volatility * normal(random);
    value = Math.max(0, Math.round(((value + startFlow) * (1 + r) + endFlow) * 100) / 100);
    valuations.push({ date, marketValue: money(value) });
  }
  return { spec, valuations, flows };
}

export interface DemoData {
  startDate: string;
  endDate: string;
  demoCapital: DemoAccountData[];
  northwind: DemoAccountData[];
}

/** The demo accounts of both organizations over the demo period. Deterministic for a seed and end date. */
export function generateDemoData(options: GenerateDemoOptions = {}): DemoData {
  const period = demoPeriod(options.endDate ?? yesterdayUtc(), options.months ?? 13);
  const days = businessDays(period.startDate, period.endDate);
  const random = seededRandom(options.seed ?? 20240101);
  const walk = { drift: options.drift ?? 0.0005, volatility: options.volatility ?? 0.008 };
  return {
    ...period,
    demoCapital: DEMO_CAPITAL_ACCOUNTS.map((spec) => generateAccount(spec, days, random, walk)),
    northwind: NORTHWIND_ACCOUNTS.map((spec) => generateAccount(spec, days, random, walk)),
  };
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The pnl CSV of some accounts: one row per valuation, flows on it or on rows of their own. */
export function buildPnlCsv(accounts: readonly DemoAccountData[]): string {
  const lines = [DEMO_PNL_HEADER];
  for (const { spec, valuations, flows } of accounts) {
    const code = csvField(spec.accountCode);
    const name = csvField(spec.entityName);
    const flowsByDate = new Map<string, DemoFlow[]>();
    for (const flow of flows) flowsByDate.set(flow.date, [...(flowsByDate.get(flow.date) ?? []), flow]);
    const valuationDates = new Set(valuations.map((v) => v.date));
    const flowRow = (flow: DemoFlow, marketValue = '') =>
      `${code},${name},${flow.date},${marketValue},${flow.amount},${flow.timing ?? ''},${csvField(flow.description)}`;
    // flows on days without a valuation (weekends), in date order with the valuations
    const orphanFlows = flows.filter((flow) => !valuationDates.has(flow.date));
    for (const valuation of valuations) {
      while (orphanFlows.length > 0 && orphanFlows[0].date < valuation.date) lines.push(flowRow(orphanFlows.shift()!));
      const sameDay = flowsByDate.get(valuation.date) ?? [];
      const onRow = sameDay.find((flow) => flow.onValuationRow);
      lines.push(onRow ? flowRow(onRow, valuation.marketValue) : `${code},${name},${valuation.date},${valuation.marketValue},,,`);
      for (const flow of sameDay) if (flow !== onRow) lines.push(flowRow(flow));
    }
    for (const flow of orphanFlows) lines.push(flowRow(flow));
  }
  return `${lines.join('\n')}\n`;
}

export interface PerformanceOptions {
  /** PRNG seed for choosing the deviating days (default 7) */
  seed?: number;
  /** comparison thresholds the deviations are placed against (defaults 1 and 10 bps) */
  matchBps?: number;
  reviewBps?: number;
  /** per account: days with a small difference (review), default 2 */
  reviewPerAccount?: number;
  /** per account: days with a large difference (investigate), default 1 */
  largePerAccount?: number;
  /** per account: days the custodian did not report (investigate), default 1 */
  missingPerAccount?: number;
  /** sign flips (investigate) in the first account, default 1 */
  signFlips?: number;
}

export interface PerformanceCsv {
  csv: string;
  /** rows written */
  rows: number;
  /** expected comparison status of every computed day (custodian missing -> investigate) */
  expected: Record<ComparisonStatus, number>;
  /** the deliberate deviations, for tests and curious readers */
  deviations: { accountCode: string; date: string; kind: 'review' | 'large' | 'sign_flip' | 'missing' }[];
}

const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });

/**
 * The custodian's daily returns in percent: the Modified Dietz returns of `dailySeries` for the
 * accounts' own valuations and flows, equal except for a few deliberate deviations: small
 * differences between the match and review thresholds (review), large ones and a sign flip
 * (investigate), and a few days the custodian did not report (investigate: custodian missing).
 */
export function buildPerformanceCsv(accounts: readonly DemoAccountData[], options: PerformanceOptions = {}): PerformanceCsv {
  const random = seededRandom(options.seed ?? 7);
  const matchBps = options.matchBps ?? DEFAULT_MATCH_THRESHOLD_BPS;
  const reviewBps = options.reviewBps ?? DEFAULT_REVIEW_THRESHOLD_BPS;
  const lines = [DEMO_PERFORMANCE_HEADER];
  const expected: Record<ComparisonStatus, number> = { match: 0, review: 0, investigate: 0 };
  const deviations: PerformanceCsv['deviations'] = [];

  accounts.forEach(({ spec, valuations, flows }, accountIndex) => {
    const series = dailySeries(
      valuations,
      flows.map((flow) => ({ date: flow.date, amount: flow.amount, ...(flow.timing ? { timing: flow.timing } : {}) })),
    );
    const periods = series.periods;
    const kinds = new Map<number, PerformanceCsv['deviations'][number]['kind']>();
    const pick = (kind: PerformanceCsv['deviations'][number]['kind'], count: number, minAbsReturn: number) => {
      for (let attempts = 0, placed = 0; placed < count && attempts < 10_000; attempts++) {
        const index = 1 + Math.floor(random() * (periods.length - 2));
        const value = periods[index].returnValue;
        if (kinds.has(index) || value === null || Math.abs(Number(value)) < minAbsReturn) continue;
        kinds.set(index, kind);
        placed++;
      }
    };
    // a small difference must not change the sign: only on days with a clearly non-zero return
    pick('review', options.reviewPerAccount ?? 2, (reviewBps + 5) / 10_000);
    pick('large', options.largePerAccount ?? 1, 0);
    pick('missing', options.missingPerAccount ?? 1, 0);
    if (accountIndex === 0) pick('sign_flip', options.signFlips ?? 1, (matchBps + 5) / 10_000);

    const code = csvField(spec.accountCode);
    const name = csvField(spec.entityName);
    periods.forEach((period, index) => {
      if (period.returnValue === null) return; // the custodian reports no return either
      const computed = new Dec(period.returnValue);
      const kind = kinds.get(index);
      let custodian = computed;
      if (kind) deviations.push({ accountCode: spec.accountCode, date: period.endDate, kind });
      if (kind === 'missing') {
        expected.investigate++;
        return;
      }
      if (kind === 'review') {
        // strictly between the thresholds, in bps with 2 decimals, same sign as the return
        const bps = new Dec(matchBps + (reviewBps - matchBps) * (0.25 + 0.5 * random())).toDecimalPlaces(2);
        custodian = computed.minus(bps.div(10_000).times(random() < 0.5 ? 1 : -1));
        expected.review++;
      } else if (kind === 'large') {
        const bps = new Dec(reviewBps + 15 + 60 * random()).toDecimalPlaces(2);
        custodian = computed.plus(bps.div(10_000).times(random() < 0.5 ? 1 : -1));
        expected.investigate++;
      } else if (kind === 'sign_flip') {
        custodian = computed.negated();
        expected.investigate++;
      } else {
        expected.match++;
      }
      lines.push(`${code},${name},${period.endDate},${custodian.times(100).toFixed()},percent`);
    });
  });
  return { csv: `${lines.join('\n')}\n`, rows: lines.length - 1, expected, deviations };
}

// ---------------------------------------------------------------------------
// Seeding
// ---------------------------------------------------------------------------

export interface SeedOptions {
  /** where the credentials block goes, one line per call (default: stdout) */
  print?: (line: string) => void;
  /**
   * Receives the credentials as soon as the users and the key exist (before the data is loaded);
   * when given, nothing is printed: the caller prints them (`printDemoCredentials`).
   */
  onCredentials?: (credentials: DemoCredentials) => void;
  /** first line of the block (default: says the database kind and that this was a first start) */
  heading?: string;
  /** false: seed even though other users exist (the caller checks that the demo does not) */
  onlyIntoEmptyDatabase?: boolean;
  /** generator options (tests pin the end date) */
  data?: GenerateDemoOptions;
}

export interface SeedResult {
  seeded: boolean;
  /** the demo API key, only when seeded */
  apiKey?: string;
  adminPassword?: string;
  analystPassword?: string;
  organizations?: { demoCapital: string; northwind: string };
  files?: { id: string; fileName: string; status: string; rowCount: number | null }[];
  durationMs?: number;
}

function randomPassword(): string {
  // 18 bytes -> 24 URL-safe characters, 144 bits
  return randomBytes(18).toString('base64url');
}

/** Seeds the demo organizations, users, key and data when the database has no user yet. */
export async function seedDemoData(services: Services, options: SeedOptions = {}): Promise<SeedResult> {
  const started = Date.now();
  const { prisma, organizations, apiKeys, storage, log } = services;
  if ((options.onlyIntoEmptyDatabase ?? true) && (await prisma.user.count()) > 0) return { seeded: false };

  const adminPassword = randomPassword();
  const analystPassword = randomPassword();
  const [adminHash, analystHash] = await Promise.all([hashPassword(adminPassword), hashPassword(analystPassword)]);
  const admin = await organizations.ensureUser({
    email: DEMO_ADMIN_EMAIL,
    name: 'Demo Admin',
    orgName: DEMO_ORG_NAME,
    role: 'admin',
    passwordHash: adminHash,
  });
  const analyst = await organizations.ensureUser({
    email: DEMO_ANALYST_EMAIL,
    name: 'Northwind Analyst',
    orgName: DEMO_OTHER_ORG_NAME,
    role: 'member',
    passwordHash: analystHash,
  });
  const demoOrg = admin.org!;
  const otherOrg = analyst.org!;
  const { secret: apiKey } = await apiKeys.create({ userId: admin.user.id, name: DEMO_KEY_NAME, scopes: ['admin'] });

  const credentials: DemoCredentials = { adminPassword, analystPassword, apiKey, demoOrgId: demoOrg.id, otherOrgId: otherOrg.id };
  if (options.onCredentials) options.onCredentials(credentials);
  else {
    printDemoCredentials(options.print ?? ((line) => process.stdout.write(`${line}\n`)), credentials, {
      dashboardUrl: dashboardUrlHint(services.config),
      heading: options.heading ?? demoHeading(services.db.kind, 'first start'),
    });
  }

  // Demo data through the real pipeline: upload, then ingest at once (not waiting for the worker).
  const data = generateDemoData(options.data);
  const thresholds = { matchBps: services.config.comparison.matchBps, reviewBps: services.config.comparison.reviewBps };
  const ingest = new IngestService({
    pool: services.db.pool,
    blobs: services.blobs,
    log: log.child({ component: 'ingest' }),
    comparisonThresholds: services.config.comparison,
  });
  const uploads: { orgId: string; uploaderId: string; fileName: string; fileType: 'pnl' | 'performance'; csv: string }[] = [
    { orgId: demoOrg.id, uploaderId: admin.user.id, fileName: `demo-capital-pnl-${data.endDate}.csv`, fileType: 'pnl', csv: buildPnlCsv(data.demoCapital) },
    {
      orgId: demoOrg.id,
      uploaderId: admin.user.id,
      fileName: `demo-capital-performance-${data.endDate}.csv`,
      fileType: 'performance',
      csv: buildPerformanceCsv(data.demoCapital, { seed: 11, ...thresholds }).csv,
    },
    { orgId: otherOrg.id, uploaderId: analyst.user.id, fileName: `northwind-pnl-${data.endDate}.csv`, fileType: 'pnl', csv: buildPnlCsv(data.northwind) },
    {
      orgId: otherOrg.id,
      uploaderId: analyst.user.id,
      fileName: `northwind-performance-${data.endDate}.csv`,
      fileType: 'performance',
      csv: buildPerformanceCsv(data.northwind, { seed: 13, ...thresholds, signFlips: 0 }).csv,
    },
  ];
  const files: NonNullable<SeedResult['files']> = [];
  for (const upload of uploads) {
    const record = await storage.upload({
      uploaderId: upload.uploaderId,
      memberOf: new Set([upload.orgId]),
      orgId: upload.orgId,
      fileType: upload.fileType,
      file: { filename: upload.fileName, createReadStream: () => Readable.from(chunks(upload.csv)) },
    });
    const result = await ingest.ingestFile(record.id);
    if (result.status !== 'processed') {
      throw new Error(`demo seed: ${upload.fileName} was not ingested (${result.status}): ${result.detail ?? 'no detail'}`);
    }
    files.push({ id: record.id, fileName: upload.fileName, status: result.status, rowCount: result.rowCount });
  }

  // The demo admin's workspace: notes, links, meetings, tasks and news to explore and to ask the assistant about.
  await seedStickies(services, admin.user.id);
  await seedLinks(services, admin.user.id);
  await seedTranscripts(services, admin.user.id);
  await seedTasks(services, admin.user.id);
  await seedNews(services, admin.user.id);
  // A first summary of that workspace: queued now, written by the worker once the service listens.
  const generationRun = await services.generation.start(admin.user.id, { days: 30 });

  const durationMs = Date.now() - started;
  // No secrets here: ids and counts only.
  log.info(
    {
      organizations: [demoOrg.id, otherOrg.id],
      users: [DEMO_ADMIN_EMAIL, DEMO_ANALYST_EMAIL],
      files: files.map((file) => ({ id: file.id, rows: file.rowCount })),
      generationRun: generationRun.id,
      period: { startDate: data.startDate, endDate: data.endDate },
      durationMs,
    },
    'demo data seeded',
  );
  return {
    seeded: true,
    apiKey,
    adminPassword,
    analystPassword,
    organizations: { demoCapital: demoOrg.id, northwind: otherOrg.id },
    files,
    durationMs,
  };
}

/**
 * New credentials for an existing demo, for whoever lost the block (it is shown once): fresh
 * passwords for both demo users and a new admin API key (the old keys keep working; revoke them by
 * prefix). Null when the demo was never seeded here.
 */
export async function reissueDemoCredentials(deps: {
  prisma: Services['prisma'];
  apiKeys: Pick<Services['apiKeys'], 'create'>;
}): Promise<DemoCredentials | null> {
  const users = await deps.prisma.user.findMany({
    where: { email: { in: [DEMO_ADMIN_EMAIL, DEMO_ANALYST_EMAIL] } },
    select: { id: true, email: true, memberships: { select: { org: { select: { id: true, name: true } } } } },
  });
  const admin = users.find((user) => user.email === DEMO_ADMIN_EMAIL);
  const analyst = users.find((user) => user.email === DEMO_ANALYST_EMAIL);
  const demoOrg = admin?.memberships.find((membership) => membership.org.name === DEMO_ORG_NAME)?.org;
  const otherOrg = analyst?.memberships.find((membership) => membership.org.name === DEMO_OTHER_ORG_NAME)?.org;
  if (!admin || !analyst || !demoOrg || !otherOrg) return null;
  const adminPassword = randomPassword();
  const analystPassword = randomPassword();
  const [adminHash, analystHash] = await Promise.all([hashPassword(adminPassword), hashPassword(analystPassword)]);
  await deps.prisma.$transaction([
    deps.prisma.user.update({ where: { id: admin.id }, data: { passwordHash: adminHash } }),
    deps.prisma.user.update({ where: { id: analyst.id }, data: { passwordHash: analystHash } }),
  ]);
  const { secret: apiKey } = await deps.apiKeys.create({
    userId: admin.id,
    name: `${DEMO_KEY_NAME} (reissued ${new Date().toISOString().slice(0, 10)})`,
    scopes: ['admin'],
  });
  return { adminPassword, analystPassword, apiKey, demoOrgId: demoOrg.id, otherOrgId: otherOrg.id };
}

/** The text in 64 KiB buffers, as a client's upload would arrive. */
function* chunks(text: string): Generator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; offset += 65_536) yield bytes.subarray(offset, offset + 65_536);
}

export interface DemoCredentials {
  adminPassword: string;
  analystPassword: string;
  apiKey: string;
  demoOrgId: string;
  otherOrgId: string;
}

/**
 * Where the dashboard is before the service listens (PUBLIC_URL, else HOST and PORT): for the
 * CLI, and for the block printed when seeding failed before the service could listen.
 */
export function dashboardUrlHint(config: Services['config']): string {
  const { publicUrl, port, host } = config;
  if (publicUrl) return new URL('/', publicUrl).toString();
  if (port === 0) return '<service URL>/';
  const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${port}/`;
}

/** The block's first line: how the demo was seeded, into which database. */
export function demoHeading(kind: Services['db']['kind'], via: 'first start' | 'seed:demo' | 'demo:credentials'): string {
  const database = kind === 'pglite' ? 'the embedded database' : 'PostgreSQL';
  if (via === 'demo:credentials') return `DEMO CREDENTIALS REISSUED in ${database} by npm run cli -- demo:credentials`;
  return via === 'first start' ? `DEMO DATA SEEDED: first start with ${database}` : `DEMO DATA SEEDED into ${database} by npm run cli -- seed:demo`;
}

/** The credentials in a framed block: shown once, never logged. */
export function printDemoCredentials(print: (line: string) => void, values: DemoCredentials, options: { dashboardUrl: string; heading: string }): void {
  const body = [
    options.heading,
    '',
    `Dashboard:           ${options.dashboardUrl}  (sign in with an account below)`,
    `  admin (Demo Capital)         ${DEMO_ADMIN_EMAIL}`,
    `  password                     ${values.adminPassword}`,
    `  member (Northwind Advisors)  ${DEMO_ANALYST_EMAIL}`,
    `  password                     ${values.analystPassword}`,
    '',
    `API key (scope admin, owner ${DEMO_ADMIN_EMAIL}, send as x-api-key):`,
    `  ${values.apiKey}`,
    '',
    `org_id Demo Capital:         ${values.demoOrgId}`,
    `org_id Northwind Advisors:   ${values.otherOrgId}`,
    '',
    'These credentials are shown ONLY NOW and are stored only as hashes.',
    'Copy them somewhere safe. New keys: npm run cli -- key:create --email E --scopes S',
    'Lost them? npm run cli -- demo:credentials prints new ones (new passwords, a new key).',
  ];
  const width = Math.max(...body.map((line) => line.length)) + 4;
  const rule = `+${'='.repeat(width - 2)}+`;
  print('');
  print(rule);
  for (const line of body) print(`| ${line.padEnd(width - 4)} |`);
  print(rule);
  print('');
}
