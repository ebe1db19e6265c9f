/**
 * Client-side helpers for the returns, auth and rate-limit tests: load the sample files the way a
 * client does (multipart upload over real HTTP, then poll the file listing), call /graphql, and
 * plain HTTP requests where fetch cannot do what a test needs (a chosen local address).
 */
import fs from 'node:fs';
import http from 'node:http';
import type pg from 'pg';
import { getJson } from './fixtures.ts';

export const SAMPLE_PNL = new URL('../../samples/pnl-sample.csv', import.meta.url);
export const SAMPLE_PERFORMANCE = new URL('../../samples/performance-sample.csv', import.meta.url);

export function readSample(url: URL): string {
  return fs.readFileSync(url, 'utf8');
}

/** POST /api/storage/upload as a browser form or `curl -F` would. */
export function uploadCsv(baseUrl: string, headers: Record<string, string>, orgId: string, name: string, content: string) {
  const form = new FormData();
  form.set('org_id', orgId);
  form.set('file', new Blob([content], { type: 'text/csv' }), name);
  return getJson(`${baseUrl}/api/storage/upload`, { method: 'POST', headers, body: form });
}

/** Uploads the files and waits until the listing shows every one of them `processed`. */
export async function loadFiles(baseUrl: string, key: string, orgId: string, files: { name: string; content: string }[], timeoutMs = 30_000): Promise<void> {
  const ids: string[] = [];
  for (const file of files) {
    const response = await uploadCsv(baseUrl, { 'x-api-key': key }, orgId, file.name, file.content);
    if (response.status !== 201) throw new Error(`upload of ${file.name} answered ${response.status}: ${JSON.stringify(response.body)}`);
    ids.push(response.body.data.id);
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listing = await getJson(`${baseUrl}/api/storage/files?org_id=${orgId}&limit=500`, { headers: { 'x-api-key': key } });
    if (listing.status !== 200) throw new Error(`file listing answered ${listing.status}: ${JSON.stringify(listing.body)}`);
    const byId = new Map<string, { status: string; status_detail: string | null }>(listing.body.data.map((file: any) => [file.id, file]));
    const failed = ids.map((id) => byId.get(id)).find((file) => file?.status === 'failed');
    if (failed) throw new Error(`ingest failed: ${JSON.stringify(failed)}`);
    if (ids.every((id) => byId.get(id)?.status === 'processed')) return;
    if (Date.now() > deadline) throw new Error(`files not processed within ${timeoutMs} ms: ${JSON.stringify(listing.body.data)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Uploads both sample files and waits for their ingest. */
export function loadSamples(baseUrl: string, key: string, orgId: string): Promise<void> {
  return loadFiles(baseUrl, key, orgId, [
    { name: 'pnl-sample.csv', content: readSample(SAMPLE_PNL) },
    { name: 'performance-sample.csv', content: readSample(SAMPLE_PERFORMANCE) },
  ]);
}

export interface GraphQLResponse {
  status: number;
  headers: Headers;
  body: { data?: any; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[] };
}

/** POST /graphql with a JSON body. */
export async function graphql(
  baseUrl: string,
  headers: Record<string, string>,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GraphQLResponse> {
  return getJson(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
}

/** A GET from a chosen loopback source address (another "client address" on the same machine). */
export function getFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { localAddress, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? JSON.parse(text) : undefined });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

type Sql = Pick<pg.Pool, 'query'>;

/** Exchange rates stored as an fx upload stores them: 1 base = rate quote at the close of each date. */
export async function insertFxRates(pool: Sql, orgId: string, base: string, quote: string, rates: [date: string, rate: string][]): Promise<void> {
  await pool.query(`INSERT INTO "FxRate" ("orgId", base, quote, date, rate) SELECT $1, $2, $3, d, r FROM unnest($4::date[], $5::numeric[]) AS t(d, r)`, [
    orgId,
    base,
    quote,
    rates.map(([date]) => date),
    rates.map(([, rate]) => rate),
  ]);
}

/** A benchmark's levels stored as a benchmark upload stores them. */
export async function insertBenchmarkLevels(pool: Sql, orgId: string, benchmark: string, levels: [date: string, level: string][]): Promise<void> {
  await pool.query(`INSERT INTO "BenchmarkLevel" ("orgId", benchmark, date, level) SELECT $1, $2, d, l FROM unnest($3::date[], $4::numeric[]) AS t(d, l)`, [
    orgId,
    benchmark,
    levels.map(([date]) => date),
    levels.map(([, level]) => level),
  ]);
}
