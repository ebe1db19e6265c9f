import express, { type Request, type Response, type Router } from 'express';
import type { OperationRunner, PreparedOperation } from '../schema/pipeline/index.ts';
import { getSchema } from '../schema/index.ts';
import { operationBudget } from '../schema/plugins/rate-budget.ts';
import type { Budget } from '../src/ratelimit/rate-limiter.ts';
import { requireViewer, viewerHasScope, type RequestContext } from '../src/context.ts';
import { AppError } from '../src/errors.ts';
import { appErrorForDatabaseFailure } from '../src/db/db-errors.ts';
import type { Logger } from '../src/log.ts';
import { buildVariables, restFieldName, variableSpecs, type InputSource, type VariableSpec } from './params.ts';
import { readMultipartForm } from './multipart.ts';
import { sendError, sendJson } from './errors.ts';
import type { RestRoute } from './route.ts';
import { handleEventStream, type PreparedStream } from './event-stream.ts';

const JSON_BODY_LIMIT = '1mb';

export interface RouterOptions {
  routes: RestRoute[];
  /** The operation pipeline every front shares. */
  operations: OperationRunner;
  context: (req: Request) => Promise<RequestContext>;
  /** The request's logger, for failures before its context exists (the HTTP shell's). */
  requestLog: (req: Request) => Logger;
  maxUploadBytes: number;
}

interface PreparedRoute {
  route: RestRoute;
  operation: PreparedOperation;
  specs: VariableSpec[];
  /**
   * Paid before the body is read: the budget of the operation's root field (its `rateBudget`).
   * A stream route pays only when its operation starts something (the resolver charges then).
   */
  budget?: Budget;
  stream?: PreparedStream;
}

/**
 * Turns the route table into express handlers. Every route runs the same steps: budget,
 * preflight auth (before any body is read), inputs -> variables, the GraphQL operation, and the
 * result or error -> the documented body. Paths with no route for a method answer 405 + Allow.
 */
export function createRestRouter(options: RouterOptions): Router {
  const router = express.Router();
  const prepared = options.routes.map((route): PreparedRoute => {
    const { operations } = options;
    const operation = operations.prepare(route.operation);
    const specs = variableSpecs(route, operation.document);
    if (!route.stream) return { route, operation, specs, budget: operationBudget(getSchema(), operation.document) };
    // Every operation of the stream is parsed and validated now, not on the first request.
    const find = operations.prepare(route.stream.find.operation);
    const stream: PreparedStream = {
      route,
      operations,
      start: operation,
      find,
      latest: operations.prepare(route.stream.latest.operation),
      subscription: operations.prepare(route.stream.subscription.operation),
      startSpecs: specs,
      findSpecs: variableSpecs({ ...route, params: { [route.stream.followParam]: 'runId' } }, find.document),
    };
    return { route, operation, specs, stream };
  });
  const jsonParser = express.json({ limit: JSON_BODY_LIMIT, strict: true, type: () => true });

  // One express route per path, in the table's order, with its 405 right after its methods: a
  // literal path (`/api/links/folders`) listed before a parameterised one (`/api/links/:id`)
  // then answers every method itself instead of falling through to the parameter route.
  const byPath = new Map<string, PreparedRoute[]>();
  for (const entry of prepared) byPath.set(entry.route.path, [...(byPath.get(entry.route.path) ?? []), entry]);
  for (const [path, entries] of byPath) {
    const route = router.route(path);
    for (const entry of entries) {
      const method = entry.route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      route[method]((req: Request, res: Response) => {
        void handle(entry, req, res).catch((error: unknown) => fail(res, entry, error));
      });
    }
    const methods = entries.map((entry) => entry.route.method);
    route.all((_req: Request, res: Response) => {
      res.setHeader('Allow', methods.join(', '));
      sendError(res, new AppError('METHOD_NOT_ALLOWED', `Method not allowed; use ${methods.join(', ')}`));
    });
  }
  return router;

  async function handle(entry: PreparedRoute, req: Request, res: Response): Promise<void> {
    const { route, specs } = entry;
    let ctx: RequestContext;
    try {
      ctx = await options.context(req);
    } catch (error) {
      if (!route.unavailable) throw error;
      sendJson(res, route.unavailable.status ?? 503, route.unavailable.body);
      return;
    }
    if (entry.budget) await ctx.budgets.prepay(entry.budget);
    if (route.requires) preflightAuth(ctx, route.requires);
    if (entry.stream) return handleEventStream(entry.stream, ctx, req, res);

    const inputs: { source: InputSource; values: Record<string, unknown> }[] = [
      { source: 'query', values: req.query as Record<string, unknown> },
      { source: 'path', values: req.params as Record<string, unknown> },
    ];
    if (route.body === 'json') inputs.push({ source: 'body', values: await readJsonBody(req, res) });
    if (route.body === 'multipart') {
      const fileFields = specs.filter((spec) => spec.type.toString().startsWith('Upload')).map((spec) => spec.restName);
      const form = await readMultipartForm(req, res, { maxFileBytes: options.maxUploadBytes, fileFields });
      inputs.push({ source: 'form', values: form.fields }, { source: 'body', values: form.files });
    }
    const variables = buildVariables(specs, inputs);
    const result = await options.operations.execute(ctx, entry.operation, variables);
    const decisions = await ctx.budgets.settled();
    if (result.errors?.length) {
      sendError(res, result.errors[0], (field) => restFieldName(specs, field), decisions);
      return;
    }
    const response = route.respond!((result.data ?? {}) as Record<string, unknown>);
    sendJson(res, response.status ?? route.status ?? 200, response.body, decisions);
  }

  async function fail(res: Response, entry: PreparedRoute, error: unknown): Promise<void> {
    const ctx = await options.context(res.req).catch(() => undefined);
    const decisions = ctx ? await ctx.budgets.settled().catch(() => []) : [];
    if (entry.route.body === 'multipart') res.setHeader('Connection', 'close');
    if (error instanceof AppError) {
      sendError(res, error, (field) => restFieldName(entry.specs, field), decisions);
      return;
    }
    const databaseFailure = appErrorForDatabaseFailure(error);
    if (databaseFailure) {
      (ctx?.log ?? options.requestLog(res.req)).warn({ err: error, code: databaseFailure.code }, 'REST handler: database refused or failed');
      sendError(res, databaseFailure, (field) => restFieldName(entry.specs, field), decisions);
      return;
    }
    (ctx?.log ?? options.requestLog(res.req)).error({ err: error }, 'REST handler failed');
    sendError(res, new AppError('INTERNAL_SERVER_ERROR', 'Internal server error'));
  }

  function readJsonBody(req: Request, res: Response): Promise<Record<string, unknown>> {
    const length = Number(req.headers['content-length'] ?? 0);
    if (!req.headers['content-type'] && length === 0 && !req.headers['transfer-encoding']) return Promise.resolve({});
    if (!/^application\/(.+\+)?json\b/i.test(req.headers['content-type'] ?? '')) {
      return Promise.reject(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
    }
    return new Promise((resolve, reject) => {
      jsonParser(req, res, (error?: unknown) => {
        if (error) {
          const status = (error as { status?: number }).status;
          reject(status === 413 ? new AppError('PAYLOAD_TOO_LARGE', `JSON body exceeds ${JSON_BODY_LIMIT}`) : new AppError('BAD_USER_INPUT', 'Malformed JSON body'));
          return;
        }
        const body: unknown = req.body;
        if (body === undefined || body === null) return resolve({});
        if (typeof body !== 'object' || Array.isArray(body)) return reject(new AppError('BAD_USER_INPUT', 'The JSON body must be an object'));
        resolve(body as Record<string, unknown>);
      });
    });
  }
}

function preflightAuth(ctx: RequestContext, requires: NonNullable<RestRoute['requires']>): void {
  requireViewer(ctx);
  if (requires !== 'authenticated' && !viewerHasScope(ctx, requires)) throw AppError.forbidden();
}
