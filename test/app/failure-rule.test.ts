/**
 * One failure rule (src/refusal.ts): what a failure met before or around an operation is answered
 * with, and the log line it gets, decided once for every front (the REST router, express, the REST
 * lane, /graphql and its multipart uploads, graphql-ws, the pipeline's error masking). The rule
 * itself, case by case, then a scan that no front decides it again on its own.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { refusalFor, type RefusalDeps } from '../../src/refusal.ts';
import { AppError } from '../../src/errors.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

function recorder() {
  const lines: { level: string; message: string }[] = [];
  const outages: unknown[] = [];
  const at = (level: string) => (_fields: object, message: string) => void lines.push({ level, message });
  const log = { info: at('info'), warn: at('warn'), error: at('error') } as unknown as RefusalDeps['log'];
  const deps: RefusalDeps = { log, databaseOutage: { failed: (e: unknown) => void outages.push(e) } };
  return { lines, outages, deps };
}

describe('refusalFor: the one rule', () => {
  it('an AppError is the answer itself, and is not logged', () => {
    const { lines, deps } = recorder();
    const error = AppError.badInput('limit', 'must be at least 1');
    expect(refusalFor(error, deps)).toBe(error);
    expect(lines).toEqual([]);
  });

  it("a parser's 4xx keeps its status and says so at info", () => {
    const { lines, deps } = recorder();
    const tooLarge = Object.assign(new Error('request entity too large'), { status: 413 });
    expect(refusalFor(tooLarge, deps)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, message: 'request entity too large' });
    const charset = Object.assign(new Error('unsupported charset "UTF-7"'), { statusCode: 415 });
    expect(refusalFor(charset, deps)).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
    const percent = Object.assign(new URIError('URI malformed'), { status: 400 });
    expect(refusalFor(percent, deps)).toMatchObject({ code: 'BAD_USER_INPUT', message: 'Malformed percent-encoding in the request path' });
    expect(lines.map((line) => line.level)).toEqual(['info', 'info', 'info']);
  });

  it('an unavailable database is 503 with Retry-After, told to the outage log (once-per-outage logging is its job)', () => {
    const { lines, outages, deps } = recorder();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(refusalFor(refused, deps)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, extensions: { retryAfterSeconds: 1 } });
    expect(outages).toEqual([refused]);
    expect(lines).toEqual([]);
  });

  it('a value the database refused is a 400 in its words, logged as a warning', () => {
    const { lines, deps } = recorder();
    const nul = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
    expect(refusalFor(nul, deps)).toMatchObject({ code: 'BAD_USER_INPUT', status: 400 });
    expect(lines.map((line) => line.level)).toEqual(['warn']);
  });

  it('anything else is a generic 500, the details only in the log', () => {
    const { lines, deps } = recorder();
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    const answer = refusalFor(bug, deps);
    expect(answer).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', status: 500, message: 'Internal server error' });
    expect(answer.message).not.toContain('undefined');
    expect(lines).toEqual([{ level: 'error', message: 'unhandled error' }]);
  });
});

/** Source files of the fronts and the pipeline. */
function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const relative = path.join(dir, name);
    if (statSync(path.join(ROOT, relative)).isDirectory()) return sources(relative);
    return /\.tsx?$/.test(name) ? [relative] : [];
  });
}

describe('no front decides it again', () => {
  const files = ['server', 'rest-compat', 'mcp', 'schema', 'src'].flatMap(sources);

  it('only the rule writes the generic 500 or turns a database failure into an answer', () => {
    const offences: string[] = [];
    for (const file of files) {
      if (file === path.join('src', 'refusal.ts') || file === path.join('src', 'db', 'db-errors.ts')) continue;
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const at = `${file}:${index + 1}: ${line.trim()}`;
          if (/new AppError\(\s*'INTERNAL_SERVER_ERROR'/.test(line)) offences.push(at);
          // graphql-ws reads it only to choose a close code for a socket (isUnavailable)
          if (
            /appErrorForDatabaseFailure\(/.test(line) &&
            !line.includes('isUnavailable') &&
            !/^\s*return appErrorForDatabaseFailure\(error\)\?\.code === 'SERVICE_UNAVAILABLE'/.test(line)
          )
            offences.push(at);
        });
    }
    expect(offences, 'answer failures with refusalFor (src/refusal.ts)').toEqual([]);
  });

  it('the scan sees the fronts', () => {
    for (const front of [
      'rest-compat/router.ts',
      'server/http/http-app.ts',
      'server/http/rest-lane.ts',
      'server/http/graphql.ts',
      'schema/pipeline/use-error-masking.ts',
    ]) {
      expect(files).toContain(front);
      expect(readFileSync(path.join(ROOT, front), 'utf8')).toContain('refusalFor(');
    }
  });
});
