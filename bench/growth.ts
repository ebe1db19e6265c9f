/**
 * Growth benchmark (issue 16): how the returns reads' latency moves as the demo organization's
 * returns grow. Goal: "Comparison p50 at 300x the demo data within 1.5x of its p50 at 1x, on both
 * databases."
 *
 *   npx tsx bench/growth.ts [--sizes 1,10,30,300] [--requests 60] [--warmup 10] [--first-warmup 300] [--accounts-per-file 50]
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test npx tsx bench/growth.ts [...]
 *
 * Starts the real service in this process (startBenchService: its own PostgreSQL schema, dropped at
 * the end, or the embedded database in a temp DATA_DIR), seeds the demo data (seedDemoData) and
 * then, size by size (cumulative: 10x grows the 1x organization, 30x the 10x one...), gives
 * "Demo Capital" more accounts with the demo's shape of history: the same business days, one
 * valuation per day, 4-7 flows (some opening at 0 and funded later, some weekend flows), and the
 * custodian's returns equal to the computed ones except 2 review and 1 large difference, 1 missing
 * day per account and 1 sign flip per file (so all three statuses appear). The accounts go through
 * the product's own ingest path: pnl and performance CSV files uploaded with StorageService.upload
 * (what POST /api/storage/upload does after the multipart parsing: blob, UploadedFile row, ingest
 * job) and ingested by the service's own ingest worker (services.ingestWorker.runOnce(): the
 * service's IngestService with its ANALYZE-after-load setting), so everything the ingest maintains
 * beside the returns is maintained.
 *
 * After each size it checks that planner statistics are fresh: every returns table whose last
 * ANALYZE is older than the step's first load is analyzed by the benchmark, which says so. Then it
 * measures, at one connection (one keep-alive connection, requests one after the other), the
 * reads in rounds: --warmup rounds (plus --first-warmup more before the first size: a fresh
 * process answers its first thousand or so requests slower: JIT, and PGlite's WebAssembly
 * tiering up), then --requests rounds timed, a round
 * sending each read once;
 * every response checked (200, a non-empty page). Prints each read's p50, p90, min-max and the
 * ratio of its p50 to the first size's.
 * Progress goes to stderr, figures to stdout.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import {
  buildPerformanceCsv,
  buildPnlCsv,
  businessDays,
  DEMO_ADMIN_EMAIL,
  DEMO_CAPITAL_ACCOUNTS,
  DEMO_ORG_NAME,
  generateAccount,
  generateDemoData,
  seededRandom,
  seedDemoData,
  yesterdayUtc,
  type DemoAccountData,
  type DemoAccountSpec,
} from '../src/seed/demo-seed.ts';
import type { Services } from '../src/services.ts';
import { startBenchService } from './bench-service.ts';

// ---------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1,10,30,300' },
    requests: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '10' },
    'accounts-per-file': { type: 'string', default: '50' },
    'first-warmup': { type: 'string', default: '300' },
  },
});

function positiveInteger(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a positive integer, not ${JSON.stringify(text)}`);
  return value;
}

const sizes = values.sizes.split(',').map((text) => positiveInteger('sizes', text.trim()));
for (let i = 1; i < sizes.length; i++) if (sizes[i] <= sizes[i - 1]) throw new Error('--sizes must be increasing (the organization only grows)');
const requests = positiveInteger('requests', values.requests);
const warmup = Number(values.warmup);
if (!Number.isInteger(warmup) || warmup < 0) throw new Error('--warmup takes a whole number');
const accountsPerFile = positiveInteger('accounts-per-file', values['accounts-per-file']);
/** extra warm-up rounds before the first size only: the process's first requests are slower (JIT, caches) */
const firstWarmup = Number(values['first-warmup']);
if (!Number.isInteger(firstWarmup) || firstWarmup < 0) throw new Error('--first-warmup takes a whole number');

const progress = (line: string) => process.stderr.write(`${line}\n`);
const print = (line = '') => process.stdout.write(`${line}\n`);

// ---------------------------------------------------------------------------
// The accounts added to the demo organization
// ---------------------------------------------------------------------------

const NAME_FIRST = [
  'Harbor',
  'Cedar',
  'Summit',
  'Aurora',
  'Keystone',
  'Granite',
  'Willow',
  'Meridian',
  'Pinnacle',
  'Bayview',
  'Lakeside',
  'Redwood',
  'Silverline',
  'Northgate',
  'Clearwater',
  'Ironbridge',
];
const NAME_SECOND = [
  'Growth Fund LP',
  'Family Trust',
  'Pension Plan',
  'Endowment',
  'Opportunities Fund',
  'Income Fund',
  'Foundation',
  'Balanced Portfolio',
  'Credit Fund',
  'Retirement Plan',
];

/** The demo's accounts are DC-1001..DC-1005; added account n (6, 7, ...) is DC-(1000 + n). */
function addedAccountSpec(n: number, random: () => number): DemoAccountSpec {
  const name = `${NAME_FIRST[n % NAME_FIRST.length]} ${NAME_SECOND[Math.floor(n / NAME_FIRST.length) % NAME_SECOND.length]} ${String(n).padStart(4, '0')}`;
  const flowCount = 4 + Math.floor(random() * 4); // the demo's accounts have 4 to 7
  const weekendFlow = random() < 0.2; // one demo account in five has a weekend flow
  if (random() < 0.2) {
    // one demo account in five opens empty and is funded later
    const amount = Math.round((1_000_000 + random() * 19_000_000) / 100_000) * 100_000;
    return {
      accountCode: `DC-${1000 + n}`,
      entityName: name,
      openingValue: 0,
      funding: { afterBusinessDays: 10 + Math.floor(random() * 40), amount },
      flowCount,
      weekendFlow,
    };
  }
  const openingValue = Math.round((1_000_000 + random() * 49_000_000) / 1000) * 1000;
  return { accountCode: `DC-${1000 + n}`, entityName: name, openingValue, flowCount, weekendFlow };
}

/** Account n's history over the demo's business days; its own PRNG, so it does not depend on the sizes run. */
function addedAccount(n: number, days: readonly string[]): DemoAccountData {
  const random = seededRandom(0x9e3779b1 ^ (n * 2_654_435_761));
  return generateAccount(addedAccountSpec(n, random), days, random, { drift: 0.0005, volatility: 0.008 });
}

function* chunks(text: string): Generator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; offset += 65_536) yield bytes.subarray(offset, offset + 65_536);
}

// ---------------------------------------------------------------------------
// Loading through the product's ingest
// ---------------------------------------------------------------------------

interface LoadContext {
  services: Services;
  orgId: string;
  uploaderId: string;
}

/** Uploads one CSV as the upload endpoint does and ingests it with the service's own worker. Returns the rows ingested. */
async function uploadAndIngest(context: LoadContext, fileName: string, fileType: 'pnl' | 'performance', csv: string): Promise<number> {
  const { services, orgId, uploaderId } = context;
  const record = await services.storage.upload({
    uploaderId,
    memberOf: new Set([orgId]),
    orgId,
    fileType,
    file: { filename: fileName, createReadStream: () => Readable.from(chunks(csv)) },
  });
  // The worker is not started (WORKER_ENABLED=false in startBenchService): drive it here, one job
  // at a time, until the queue is empty (the demo seed's own jobs are skipped as already processed).
  while (await services.ingestWorker.runOnce()) {
    // next job
  }
  const file = await services.prisma.uploadedFile.findUnique({ where: { id: record.id } });
  if (!file || file.status !== 'processed') {
    throw new Error(`${fileName} was not ingested: ${file?.status ?? 'missing'} ${file?.statusDetail ?? ''}`);
  }
  return file.rowCount ?? 0;
}

interface Counts {
  entities: number;
  valuations: number;
  cashTransactions: number;
  custodianReturns: number;
  dailyReturns: number;
  statuses: string;
}

async function countOrganization(services: Services, orgId: string): Promise<Counts> {
  const { rows } = await services.db.pool.query<Omit<Counts, 'statuses'>>(
    `SELECT (SELECT count(*) FROM "Entity" WHERE "orgId" = $1)::int AS entities,
            (SELECT count(*) FROM "Valuation" v JOIN "Entity" e ON e.id = v."entityId" WHERE e."orgId" = $1)::int AS valuations,
            (SELECT count(*) FROM "CashTransaction" c JOIN "Entity" e ON e.id = c."entityId" WHERE e."orgId" = $1)::int AS "cashTransactions",
            (SELECT count(*) FROM "CustodianReturn" c JOIN "Entity" e ON e.id = c."entityId" WHERE e."orgId" = $1)::int AS "custodianReturns",
            (SELECT count(*) FROM "DailyReturn" d JOIN "Entity" e ON e.id = d."entityId" WHERE e."orgId" = $1)::int AS "dailyReturns"`,
    [orgId],
  );
  let statuses: string;
  try {
    // the comparison as the ingest keeps it (src/returns/reconciliation.ts)
    const byStatus = await services.db.pool.query<{ status: string; n: number }>(
      `SELECT status::text AS status, count(*)::int AS n FROM "Reconciliation" WHERE "orgId" = $1 GROUP BY 1 ORDER BY 1`,
      [orgId],
    );
    statuses = byStatus.rows.map((row) => `${row.status} ${fmt(row.n)}`).join(', ');
  } catch (error) {
    statuses = `(could not count the reconciliation: ${error instanceof Error ? error.message : String(error)})`;
  }
  return { ...rows[0], statuses };
}

/** The tables the returns reads use. */
const RETURNS_TABLES = ['Entity', 'Valuation', 'CashTransaction', 'CustodianReturn', 'DailyReturn', 'Reconciliation'];

/**
 * Fresh planner statistics for the measurement: the returns tables last analyzed (by the
 * service's ANALYZE after a load, or autovacuum) before `since` are analyzed here. Returns their names.
 */
async function refreshStaleStatistics(services: Services, since: Date): Promise<string[]> {
  const { rows } = await services.db.pool.query<{ relname: string; analyzed: Date | null }>(
    `SELECT relname, GREATEST(last_analyze, last_autoanalyze) AS analyzed
       FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = ANY($1::text[])`,
    [RETURNS_TABLES],
  );
  const analyzed = new Map(rows.map((row) => [row.relname, row.analyzed]));
  const stale = RETURNS_TABLES.filter((table) => analyzed.has(table) && (analyzed.get(table) === null || analyzed.get(table)! < since));
  if (stale.length > 0) await services.db.pool.query(`ANALYZE ${stale.map((table) => `"${table}"`).join(', ')}`);
  return stale;
}

// ---------------------------------------------------------------------------
// Measuring
// ---------------------------------------------------------------------------

interface Probe {
  label: string;
  path: string;
  /** why a 200 body is not acceptable, or null */
  check(body: unknown): string | null;
}

interface Summary {
  p50: number;
  p90: number;
  min: number;
  max: number;
  /** /api/benchmark only: the p50 of the execution_time_ms it reports */
  reportedP50?: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyList(body: unknown): string | null {
  if (!isRecord(body) || !Array.isArray(body.data)) return 'no data array';
  return body.data.length > 0 ? null : 'empty page';
}

/** One request, timed from the call to the end of the body, checked. Returns the time and the body. */
async function request(baseUrl: string, key: string, probe: Probe): Promise<{ elapsed: number; body: unknown }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${probe.path}`, { headers: { 'x-api-key': key, accept: 'application/json' } });
  const text = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`${probe.path} answered ${response.status}: ${text.slice(0, 500)}`);
  const body: unknown = JSON.parse(text);
  const problem = probe.check(body);
  if (problem) throw new Error(`${probe.path}: ${problem}: ${text.slice(0, 500)}`);
  return { elapsed, body };
}

/**
 * --warmup rounds, then --requests rounds; a round sends each probe's request once, one after
 * the other on one connection, so a neighbour's burst on the shared machine lands on every probe
 * rather than on whichever was being measured.
 */
async function measureAll(baseUrl: string, key: string, probes: readonly Probe[], warmup: number): Promise<Summary[]> {
  const times = probes.map((): number[] => []);
  const reported = probes.map((): number[] => []);
  for (let round = 0; round < warmup + requests; round++) {
    for (const [i, probe] of probes.entries()) {
      const { elapsed, body } = await request(baseUrl, key, probe);
      if (round < warmup) continue;
      times[i].push(elapsed);
      if (isRecord(body) && isRecord(body.data) && typeof body.data.execution_time_ms === 'number') reported[i].push(body.data.execution_time_ms);
    }
  }
  return probes.map((_, i) => {
    const sorted = [...times[i]].sort((a, b) => a - b);
    const summary: Summary = { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), min: sorted[0], max: sorted[sorted.length - 1] };
    if (reported[i].length > 0)
      summary.reportedP50 = percentile(
        [...reported[i]].sort((a, b) => a - b),
        0.5,
      );
    return summary;
  });
}

const DECADE = 'Decade Fund';

/** One entity valued every calendar day for ten years up to endDate, deterministic moves of -1.9 % to +2.1 %, a flow about every 17 days. */
function decadeCsv(endDate: string): string {
  const rows = ['account_code,entity_name,date,market_value,cash_flow,flow_timing,description'];
  const end = Date.parse(`${endDate}T00:00:00Z`) / 86_400_000;
  let value = 100_000_000n; // cents
  let seed = 11;
  for (let day = end - 3_652; day <= end; day++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    let flow = '';
    if (day % 17 === 0) {
      const amount = seed % 2 === 0 ? 2_500_000n : -1_500_000n;
      value += amount;
      flow = (Number(amount) / 100).toFixed(2);
    }
    value += (value * BigInt((seed % 401) - 190)) / 10_000n;
    const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
    rows.push(`DEC-0001,${DECADE},${date},${value / 100n}.${String(value % 100n).padStart(2, '0')},${flow},,`);
  }
  return rows.join('\n');
}

const fmt = (n: number) => n.toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------

const endDate = yesterdayUtc();
const service = await startBenchService();
try {
  const { services } = service;
  const kind = services.db.kind;
  const version = (await services.db.pool.query<{ v: string }>('SELECT version() AS v')).rows[0].v.split(',')[0];

  let t = performance.now();
  const seeded = await seedDemoData(services, { print: () => {}, data: { endDate } });
  const seedS = (performance.now() - t) / 1000;
  const key = seeded.apiKey!;
  const orgId = seeded.organizations!.demoCapital;
  const admin = await services.prisma.user.findUniqueOrThrow({ where: { email: DEMO_ADMIN_EMAIL } });
  const context: LoadContext = { services, orgId, uploaderId: admin.id };

  const period = generateDemoData({ endDate });
  const days = businessDays(period.startDate, period.endDate);
  const demoAccounts = DEMO_CAPITAL_ACCOUNTS.length;
  const demoEntity = DEMO_CAPITAL_ACCOUNTS[0];
  const yearAgo = new Date(Date.parse(`${period.endDate}T00:00:00Z`) - 365 * 86_400_000).toISOString().slice(0, 10);

  // Ten years of daily history for one more entity: its period table and calendar must cost a few
  // index reads (issue 28), so they are measured beside the demo entity's one year.
  await uploadAndIngest(context, 'growth-decade.csv', 'pnl', decadeCsv(period.endDate));
  const probes: Probe[] = [
    { label: 'comparison?limit=50', path: '/api/returns/comparison?limit=50', check: nonEmptyList },
    { label: 'comparison?limit=50&status=investigate', path: '/api/returns/comparison?limit=50&status=investigate', check: nonEmptyList },
    {
      label: `comparison?limit=50&account_code=${demoEntity.accountCode}`,
      path: `/api/returns/comparison?limit=50&account_code=${demoEntity.accountCode}`,
      check: nonEmptyList,
    },
    {
      label: 'dietz-daily (1 entity, 1 year)',
      path: `/api/returns/dietz-daily?entity_name=${encodeURIComponent(demoEntity.entityName)}&start_date=${yearAgo}&end_date=${period.endDate}`,
      check: (body) => (isRecord(body) && isRecord(body.data) && Array.isArray(body.data.days) && body.data.days.length > 0 ? null : 'no days'),
    },
    {
      label: 'periods (1 entity, MTD..SI)',
      path: `/api/returns/periods?entity_name=${encodeURIComponent(demoEntity.entityName)}`,
      check: (body) => (isRecord(body) && isRecord(body.data) && Array.isArray(body.data.periods) && body.data.periods.length === 11 ? null : 'no periods'),
    },
    {
      label: 'calendar (1 entity)',
      path: `/api/returns/calendar?entity_name=${encodeURIComponent(demoEntity.entityName)}`,
      check: (body) => (isRecord(body) && isRecord(body.data) && Array.isArray(body.data.months) && body.data.months.length > 0 ? null : 'no months'),
    },
    {
      label: 'periods (1 entity, 10 years daily)',
      path: `/api/returns/periods?entity_name=${encodeURIComponent(DECADE)}`,
      check: (body) => (isRecord(body) && isRecord(body.data) && Array.isArray(body.data.periods) && body.data.periods.length === 11 ? null : 'no periods'),
    },
    {
      label: 'calendar (1 entity, 10 years daily)',
      path: `/api/returns/calendar?entity_name=${encodeURIComponent(DECADE)}`,
      check: (body) => (isRecord(body) && isRecord(body.data) && Array.isArray(body.data.months) && body.data.months.length >= 120 ? null : 'no months'),
    },
    {
      label: 'irr (1 entity, 1 year)',
      path: `/api/returns/irr?entity_name=${encodeURIComponent(demoEntity.entityName)}&start_date=${yearAgo}&end_date=${period.endDate}`,
      check: (body) => (isRecord(body) && isRecord(body.data) && typeof body.data.days === 'number' ? null : 'no irr'),
    },
    {
      label: 'benchmark',
      path: '/api/benchmark',
      check: (body) => (isRecord(body) && isRecord(body.data) && typeof body.data.row_count === 'number' && body.data.row_count > 0 ? null : 'no rows'),
    },
  ];

  const cpus = os.cpus();
  print(`growth benchmark: ${kind === 'pglite' ? 'embedded database (PGlite)' : 'PostgreSQL'}: ${version}`);
  print(
    `machine: ${cpus.length} cores, ${cpus[0]?.model ?? 'unknown CPU'}, node ${process.version}, load average ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  print(
    `sizes ${sizes.join(', ')}x; ${requests} requests per measurement after ${warmup} warm-up (${warmup + firstWarmup} before the first size), one connection, sequential`,
  );
  const demoCounts = await countOrganization(services, orgId);
  print(
    `demo organization "${DEMO_ORG_NAME}" (seeded in ${seedSeconds(seedS)}): ${demoCounts.entities} entities over ${days.length} business days ` +
      `(${period.startDate} to ${period.endDate}): ${fmt(demoCounts.valuations)} valuations, ${fmt(demoCounts.cashTransactions)} cash transactions, ` +
      `${fmt(demoCounts.custodianReturns)} custodian returns, ${fmt(demoCounts.dailyReturns)} daily returns; comparison rows: ${demoCounts.statuses}`,
  );
  print();

  const first: Record<string, number> = {};
  const results: { size: number; counts: Counts; loadS: number; files: number; rows: number; analyzed: string[]; summaries: Summary[] }[] = [];
  let accounts = demoAccounts;
  for (const size of sizes) {
    // Grow to size x the demo's accounts.
    const target = demoAccounts * size;
    const stepStarted = new Date((await services.db.pool.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0].now);
    let loadMs = 0;
    let files = 0;
    let rows = 0;
    const added = target - accounts;
    const stepT = performance.now();
    while (accounts < target) {
      const from = accounts + 1;
      const to = Math.min(target, accounts + accountsPerFile);
      const batch: DemoAccountData[] = [];
      for (let n = from; n <= to; n++) batch.push(addedAccount(n, days));
      const pnl = buildPnlCsv(batch);
      const performanceCsv = buildPerformanceCsv(batch, {
        seed: from,
        matchBps: services.config.comparison.matchBps,
        reviewBps: services.config.comparison.reviewBps,
      }).csv;
      const name = `DC-${1000 + from}-DC-${1000 + to}`;
      t = performance.now();
      rows += await uploadAndIngest(context, `growth-pnl-${name}.csv`, 'pnl', pnl);
      rows += await uploadAndIngest(context, `growth-performance-${name}.csv`, 'performance', performanceCsv);
      loadMs += performance.now() - t;
      files += 2;
      accounts = to;
      const done = accounts - (target - added);
      const elapsed = (performance.now() - stepT) / 1000;
      progress(
        `  ${size}x: ${done}/${added} accounts added (${fmt(rows)} rows in ${files} files), ${elapsed.toFixed(0)} s` +
          (done < added ? `, about ${((elapsed / done) * (added - done)).toFixed(0)} s to go` : ''),
      );
    }
    t = performance.now();
    const analyzed = await refreshStaleStatistics(services, stepStarted);
    const analyzeMs = performance.now() - t;
    const counts = await countOrganization(services, orgId);
    print(
      `${size}x: ${counts.entities} entities, ${fmt(counts.dailyReturns)} daily returns, ${fmt(counts.custodianReturns)} custodian returns, ` +
        `${fmt(counts.valuations)} valuations, ${fmt(counts.cashTransactions)} cash transactions; comparison rows: ${counts.statuses}`,
    );
    if (added > 0) {
      print(
        `  loaded ${added} accounts (${fmt(rows)} CSV rows, ${files} files of up to ${accountsPerFile} accounts) in ${(loadMs / 1000).toFixed(1)} s (upload + ingest; generating the CSVs not counted)`,
      );
    } else print('  (the demo data as seeded)');
    print(
      analyzed.length > 0
        ? `  statistics: ANALYZE run by this benchmark on ${analyzed.join(', ')} (${analyzeMs.toFixed(0)} ms): ${added > 0 ? "not analyzed since the step's first load (the service's ANALYZE after a load does not cover them, or the loads were below its threshold)" : 'the demo seed ingests without ANALYZE'}`
        : "  statistics: every returns table analyzed after the step's last load by the service's ingest",
    );

    const summaries = await measureAll(service.url, key, probes, results.length === 0 ? warmup + firstWarmup : warmup);
    for (const [i, probe] of probes.entries()) {
      const summary = summaries[i];
      first[probe.label] ??= summary.p50;
      const ratio = summary.p50 / first[probe.label];
      print(
        `  ${probe.label.padEnd(44)} p50 ${ms(summary.p50).padStart(6)} ms  p90 ${ms(summary.p90).padStart(6)} ms  ` +
          `min-max ${ms(summary.min)}-${ms(summary.max)} ms  p50 vs ${sizes[0]}x ${ratio.toFixed(2)}` +
          (summary.reportedP50 !== undefined ? `  (its execution_time_ms p50 ${ms(summary.reportedP50)})` : ''),
      );
    }
    results.push({ size, counts, loadS: loadMs / 1000, files, rows, analyzed, summaries });
    print();
  }

  // Summary table: one line per read, one column per size.
  print(`summary: p50 ms (ratio to ${sizes[0]}x), ${kind === 'pglite' ? 'embedded' : 'PostgreSQL'}`);
  print(`  ${'daily returns'.padEnd(44)} ${results.map((r) => fmt(r.counts.dailyReturns).padStart(16)).join('')}`);
  print(`  ${'custodian returns'.padEnd(44)} ${results.map((r) => fmt(r.counts.custodianReturns).padStart(16)).join('')}`);
  print(`  ${'load s (this step)'.padEnd(44)} ${results.map((r) => (r.files > 0 ? r.loadS.toFixed(1) : 'seed').padStart(16)).join('')}`);
  probes.forEach((probe, i) => {
    print(
      `  ${probe.label.padEnd(44)} ${results.map((r) => `${ms(r.summaries[i].p50)} (${(r.summaries[i].p50 / results[0].summaries[i].p50).toFixed(2)})`.padStart(16)).join('')}`,
    );
  });
  const last = results[results.length - 1];
  if (results.length > 1) {
    const ratio = last.summaries[0].p50 / results[0].summaries[0].p50;
    print(
      `goal: comparison p50 at ${last.size}x within 1.5x of ${results[0].size}x: ${ratio.toFixed(2)}x ${ratio <= 1.5 ? 'MET' : 'NOT MET'}` +
        (last.size !== 300 || results[0].size !== 1 ? ' (the goal is stated for 300x vs 1x)' : ''),
    );
  }
} finally {
  await service.close();
}

function seedSeconds(s: number): string {
  return `${s.toFixed(1)} s`;
}
