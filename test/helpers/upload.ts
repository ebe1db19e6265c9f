/**
 * Client-side helpers for upload tests: real multipart bodies over real HTTP, the way clients
 * send them (fetch + FormData for ordinary requests, node:http for requests whose body is
 * streamed or deliberately never finished).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'vitest';
import { getJson } from './fixtures.ts';
import type { TestServer } from './server.ts';

export const SAMPLES_DIR = new URL('../../samples/', import.meta.url);

export function sample(name: string): Promise<Buffer> {
  return fs.readFile(new URL(name, SAMPLES_DIR));
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A Buffer as a Blob part (a copy backed by a plain ArrayBuffer, as the DOM typings want). */
function blobPart(bytes: Buffer | string): string | Uint8Array<ArrayBuffer> {
  return typeof bytes === 'string' ? bytes : new Uint8Array(bytes);
}

export interface UploadFields {
  orgId?: string;
  fileType?: string;
  file?: { name: string; bytes: Buffer | string; contentType?: string };
  /** extra text fields (sent as they are) */
  extra?: Record<string, string>;
}

/** The REST form, as a browser or curl -F would send it. */
export function uploadForm(fields: UploadFields): FormData {
  const form = new FormData();
  if (fields.orgId !== undefined) form.append('org_id', fields.orgId);
  if (fields.fileType !== undefined) form.append('file_type', fields.fileType);
  for (const [name, value] of Object.entries(fields.extra ?? {})) form.append(name, value);
  if (fields.file) {
    const blob = new Blob([blobPart(fields.file.bytes)], { type: fields.file.contentType ?? 'text/csv' });
    form.append('file', blob, fields.file.name);
  }
  return form;
}

export function restUpload(baseUrl: string, key: string | undefined, fields: UploadFields) {
  return getJson(`${baseUrl}/api/storage/upload`, {
    method: 'POST',
    headers: key ? { 'x-api-key': key } : {},
    body: uploadForm(fields),
  });
}

export const UPLOAD_MUTATION = `mutation Upload($file: Upload!, $orgId: UUID!, $fileType: FileType) {
  uploadFile(file: $file, orgId: $orgId, fileType: $fileType) { id orgId fileName fileType sizeBytes sha256 status }
}`;

/** The GraphQL multipart request spec, by hand: operations, map, then the file part. */
export function graphqlUploadForm(variables: { orgId: string; fileType?: string }, file: { name: string; bytes: Buffer | string }): FormData {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: UPLOAD_MUTATION, operationName: 'Upload', variables: { ...variables, file: null } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([blobPart(file.bytes)], { type: 'text/csv' }), file.name);
  return form;
}

export function graphqlUpload(baseUrl: string, key: string, variables: { orgId: string; fileType?: string }, file: { name: string; bytes: Buffer | string }) {
  return getJson(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: graphqlUploadForm(variables, file),
  });
}

/** Polls the file listing until the file has one of `statuses`; returns its record. */
export async function waitForFileStatus(
  baseUrl: string,
  key: string,
  orgId: string,
  fileId: string,
  statuses: string[],
  timeoutMs = 30_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    for (const status of statuses) {
      const { status: code, body } = await getJson(`${baseUrl}/api/storage/files?org_id=${orgId}&status=${status}&limit=500`, {
        headers: { 'x-api-key': key },
      });
      if (code !== 200) throw new Error(`listing files answered ${code}: ${JSON.stringify(body)}`);
      const found = (body.data as Record<string, any>[]).find((file) => file.id === fileId);
      if (found) return found;
      last = body;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`file ${fileId} did not reach ${statuses.join('/')} within ${timeoutMs} ms (last listing ${JSON.stringify(last)})`);
}

/** Every file under `dir`, relative to it (empty when `dir` does not exist). */
export async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(current: string): Promise<void> {
    for (const entry of await fs.readdir(current, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else found.push(path.relative(dir, full));
    }
  }
  await walk(dir);
  return found.sort();
}

export interface PartialRequestResult {
  status: number;
  body: any;
  /** ms from the first byte sent to the response headers */
  elapsedMs: number;
  /** body bytes the client had written when the response arrived */
  bytesSentAtResponse: number;
}

/**
 * Starts a multipart upload that declares `declaredBytes` of body but sends only the form
 * preamble and `sendBytes` of file content, then waits (up to `timeoutMs`) for a response. A
 * server that reads the whole body before answering never answers: the promise rejects.
 */
export function partialMultipartUpload(
  baseUrl: string,
  /** without `declaredBytes` the body is sent chunked (no Content-Length) */
  options: { headers: Record<string, string>; orgId: string; declaredBytes?: number; sendBytes: number; contentType?: string; timeoutMs?: number },
): Promise<PartialRequestResult> {
  const boundary = `----partial${Date.now()}`;
  const preamble = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="org_id"\r\n\r\n${options.orgId}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n` +
      'account_code,entity_name,date,market_value,cash_flow\n',
  );
  const line = Buffer.from('ACC-1,Big Fund,2025-01-02,100.00,\n');
  const url = new URL('/api/storage/upload', baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let sent = 0;
    const req = http.request(url, {
      method: 'POST',
      headers: {
        ...options.headers,
        'content-type': options.contentType ?? `multipart/form-data; boundary=${boundary}`,
        ...(options.declaredBytes !== undefined ? { 'content-length': String(options.declaredBytes) } : {}),
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no response within ${options.timeoutMs ?? 10_000} ms after sending ${sent} of ${options.declaredBytes ?? 'unlimited'} bytes`));
    }, options.timeoutMs ?? 10_000);
    req.on('error', () => {
      /* the server may close the connection on us while we are still "sending": expected */
    });
    req.on('response', (res) => {
      const elapsedMs = Date.now() - started;
      const bytesSentAtResponse = sent;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* keep the text */
        }
        resolve({ status: res.statusCode ?? 0, body, elapsedMs, bytesSentAtResponse });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    req.write(preamble);
    sent += preamble.length;
    const lines = Math.max(0, Math.floor((options.sendBytes - preamble.length) / line.length));
    const filler = Buffer.from(line.toString('utf8').repeat(lines));
    req.write(filler);
    sent += filler.length;
    // ...and never the rest.
  });
}

export interface StorageLeftovers {
  files: number;
  jobs: number;
  blobs: string[];
  spooled: string[];
}

/** Rows, jobs, blobs (with the blob store's temp files) and spooled multipart temp files in `spoolDir`. */
export async function storageLeftovers(server: TestServer, spoolDir: string): Promise<StorageLeftovers> {
  return {
    files: await server.services.prisma.uploadedFile.count(),
    jobs: await server.services.prisma.job.count(),
    blobs: await filesUnder(path.join(server.dataDir, 'blobs')),
    spooled: (await fs.readdir(spoolDir)).filter((name) => name.startsWith('capacitor-')),
  };
}

/** Temp files are removed asynchronously after the response: allow them a moment, then compare. */
export async function expectNoLeftovers(server: TestServer, spoolDir: string, before: StorageLeftovers): Promise<void> {
  const deadline = Date.now() + 3_000;
  let now = await storageLeftovers(server, spoolDir);
  while (JSON.stringify(now) !== JSON.stringify(before) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    now = await storageLeftovers(server, spoolDir);
  }
  expect(now).toEqual(before);
}
