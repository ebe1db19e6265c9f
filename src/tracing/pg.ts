/**
 * Database spans: one CLIENT span per statement sent on the pool's connections, which Prisma
 * (through @prisma/adapter-pg) and the raw SQL of the ingest and job queue share. Only inside a
 * trace (a request, an operation, a job): the job workers' polls and heartbeats make no traces of
 * their own. The statement text is recorded (it is parameterised); parameter values never are.
 *
 * The pool's connections are wrapped as they are checked out (the pool's `acquire` event, on
 * every checkout): a connection opened before tracing was installed (openDatabase's first
 * `SELECT 1` on a configured PostgreSQL) is idle in the pool and would otherwise never be
 * traced. The pool's `connect` callbacks are bound to the caller's context: `pool.query` waits
 * for a free connection with a callback that the pool may call from another request's context.
 */
import type pg from 'pg';
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { tracer, tracingActive } from './state.ts';

const MAX_STATEMENT_LENGTH = 2000;
const traced = new WeakSet<object>();

type QueryFn = (...args: unknown[]) => unknown;

export function tracePool(pool: pg.Pool): void {
  if (traced.has(pool)) return;
  traced.add(pool);
  const connect = pool.connect as unknown as QueryFn;
  (pool as unknown as { connect: QueryFn }).connect = function (this: pg.Pool, ...args: unknown[]) {
    const callback = args[0];
    if (tracingActive() && typeof callback === 'function') return connect.call(this, context.bind(context.active(), callback as QueryFn));
    return connect.apply(this, args);
  };
  pool.on('acquire', (client) => traceClient(client));
}

function traceClient(client: pg.PoolClient): void {
  if (traced.has(client)) return;
  traced.add(client);
  const query = client.query as unknown as QueryFn;
  (client as unknown as { query: QueryFn }).query = function (this: pg.PoolClient, ...args: unknown[]) {
    if (!tracingActive()) return query.apply(this, args);
    const parent = context.active();
    const config = args[0] as string | { text?: unknown; submit?: unknown } | undefined;
    // Submittables (cursors, COPY streams) report through events: left untraced.
    if (!trace.getSpan(parent) || (typeof config === 'object' && config !== null && typeof config.submit === 'function')) return query.apply(this, args);
    const text = typeof config === 'string' ? config : typeof config?.text === 'string' ? config.text : '';
    const span = startStatementSpan(parent, text, this.database);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = context.bind(parent, (error: Error | null | undefined, result: pg.QueryResult | undefined) => {
        endStatementSpan(span, error ?? undefined, result);
        return (last as QueryFn)(error, result);
      });
      try {
        return query.apply(this, args);
      } catch (error) {
        endStatementSpan(span, error);
        throw error;
      }
    }
    try {
      const pending = query.apply(this, args) as Promise<pg.QueryResult> | undefined;
      if (!pending || typeof pending.then !== 'function') {
        span.end();
        return pending;
      }
      return pending.then(
        (result) => {
          endStatementSpan(span, undefined, result);
          return result;
        },
        (error: unknown) => {
          endStatementSpan(span, error);
          throw error;
        },
      );
    } catch (error) {
      endStatementSpan(span, error);
      throw error;
    }
  };
}

function startStatementSpan(parent: Context, text: string, database: string | undefined): Span {
  const operation = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
  return tracer().startSpan(
    operation ?? 'postgresql',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system.name': 'postgresql',
        'db.system': 'postgresql',
        ...(operation ? { 'db.operation.name': operation } : {}),
        ...(database ? { 'db.namespace': database } : {}),
        'db.query.text': text.length > MAX_STATEMENT_LENGTH ? `${text.slice(0, MAX_STATEMENT_LENGTH - 1)}…` : text,
      },
    },
    parent,
  );
}

function endStatementSpan(span: Span, error: unknown, result?: pg.QueryResult): void {
  if (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
  } else if (typeof result?.rowCount === 'number') {
    span.setAttribute('db.response.returned_rows', result.rowCount);
  }
  span.end();
}
