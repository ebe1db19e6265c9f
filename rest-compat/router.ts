import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response, type Router } from 'express';
import { match, type MatchFunction } from 'path-to-regexp';
import type { OperationRunner, PreparedOperation } from '../schema/pipeline/index.ts';
import { getSchema } from '../schema/index.ts';
import { operationBudget } from '../schema/plugins/rate-budget.ts';
import type { Budget } from '../src/ratelimit/rate-limiter.ts';
import { requireViewer, viewerHasScope, type RequestContext } from '../src/context.ts';
import { AppError } from '../src/errors.ts';
import { recordRefusal } from '../src/audit/refusals.ts';
import { refusalFor } from '../src/refusal.ts';
import type { DatabaseOutageLog } from '../src/db/outage-log.ts';
import type { Logger } from '../src/log.ts';
import { buildVariables, restFieldName, variableSpecs, type InputSource, type VariableSpec } from './params.ts';
import { readMultipartForm } from './multipart.ts';
import { sendError, sendJson } from './errors.ts';
import type { RestRoute } from './route.ts';
import { handleEventStream, type PreparedStream } from './event-stream.ts';
import { compileShapes, type ShapeAt } from './shape.ts';
import { announceDeprecation } from './deprecation.ts';
import { conditionalRequest, sendNotModified, sendTaggedJson } from './conditional.ts';

export const JSON_BODY_LIMIT = '1mb';
/** Express's router drops a path's trailing slashes before compiling it (router/lib/layer.js `loosen`). */
const TRAILING_SLASHES = /\/+$/;

export interface RouterOptions {
  routes: RestRoute[];
  /** The operation pipeline every front shares. */
  operations: OperationRunner;
  context: (req: IncomingMessage) => Promise<RequestContext>;
  /** The request's logger, for failures before its context exists (the HTTP shell's). */
  requestLog: (req: IncomingMessage) => Logger;
  maxUploadBytes: number;
  /** Told of each request that met an unavailable database (it logs once per outage). */
  databaseOutage: Pick<DatabaseOutageLog, 'failed'>;
  /**
   * The refusal of an event stream known before anything is looked up (the presented credential's
   * user already holds every stream slot), or undefined: a flood of refused streams costs no reads.
   */
  earlyStreamRefusal?: (headers: IncomingHttpHeaders) => AppError | undefined;
  /**
   * Forgets the request's context (made by `context`), once an event stream no longer needs it:
   * the HTTP shell keeps each request's context for as long as the request object lives, which for
   * a stream is as long as it follows.
   */
  releaseContext?: (req: IncomingMessage) => void;
}

/**
 * What a route's handler reads of a request: node's own request with the query string parsed
 * (node:querystring, as express's default "simple" parser), the decoded path parameters and,
 * once read, the JSON body. An express request is one; so is the REST lane's.
 */
export interface RestRequest extends IncomingMessage {
  query: Record<string, unknown>;
  params: Record<string, string>;
  body?: unknown;
}

interface PreparedRoute {
  route: RestRoute;
  operation: PreparedOperation;
  specs: VariableSpec[];
  /** The body's snake_casing, compiled from the operation's selection set (shape.ts). */
  shapes: ShapeAt;
  /**
   * An upload's budget (its root field's `rateBudget`), reserved before the large body is read so
   * that a spent budget is refused at once (RequestBudgets in src/ratelimit: the reservation is
   * given back if the operation does not charge it). Other routes pay when their field resolves.
   */
  reservation?: Budget;
  stream?: PreparedStream;
}

/** A path of the table with its routes, matched the way express's router matches it. */
interface PreparedPath {
  path: string;
  entries: PreparedRoute[];
  match: MatchFunction<Record<string, string>>;
}

/** The route table prepared once: its operations parsed and validated, its paths compiled. */
export interface RestRoutes {
  paths: PreparedPath[];
  /**
   * The route a request is for, by the first path of the table that matches (express's order):
   * `route` undefined when that path has no route for the method (express answers 405), or
   * undefined when no path matches or a parameter is malformed (express answers 404 or 400).
   */
  find(method: string, pathname: string): { route?: PreparedRoute; params: Record<string, string> } | undefined;
  /** Runs a JSON route (a body or none, a multipart form) for a request. */
  handle(entry: PreparedRoute, req: RestRequest, res: ServerResponse): void;
  /** Runs an event stream route (event-stream.ts). */
  handleStream(entry: PreparedRoute, req: RestRequest, res: ServerResponse): void;
}

export type { PreparedRoute };

/**
 * True for a route the REST lane may serve without express: a JSON body or none, or an event
 * stream (written with node's own response API, event-stream.ts); not a multipart form.
 */
export function servedWithoutFramework(entry: PreparedRoute): boolean {
  return entry.route.body !== 'multipart';
}

/**
 * Prepares the route table once: every route runs the same steps: preflight auth and an upload's
 * budget reservation (before any body is read), inputs -> variables, the GraphQL operation, and
 * the result or error -> the documented body. Express (createRestRouter) and the REST lane serve
 * from it.
 */
export function prepareRestRoutes(options: RouterOptions): RestRoutes {
  const paths = pathsOf(options.routes.map((route) => prepareRoute(route, options.operations)));
  const runner = new RouteRunner(options);
  return {
    paths,
    find: (method, pathname) => findRoute(paths, method, pathname),
    handle(entry, req, res) {
      announceDeprecation(entry, req, res, options.context);
      void runner.handleJson(entry, req, res).catch((error: unknown) => runner.fail(req, res, entry, error));
    },
    handleStream(entry, req, res) {
      announceDeprecation(entry, req, res, options.context);
      void runner.handleStream(entry, req, res).catch((error: unknown) => runner.fail(req, res, entry, error));
    },
  };
}

/** A route with its operations parsed and validated, its inputs and its body's shaping compiled. */
function prepareRoute(route: RestRoute, operations: OperationRunner): PreparedRoute {
  const operation = operations.prepare(route.operation);
  const specs = variableSpecs(route, operation.document);
  const shapes = compileShapes(operation.document);
  if (!route.stream) {
    const reservation = route.body === 'multipart' ? operationBudget(getSchema(), operation.document) : undefined;
    return { route, operation, specs, shapes, ...(reservation ? { reservation } : {}) };
  }
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
  return { route, operation, specs, shapes, stream };
}

/** The table's paths in its order, each with its routes, matched with express's router options: case-insensitive, an optional trailing slash, parameters decoded. */
function pathsOf(prepared: PreparedRoute[]): PreparedPath[] {
  const byPath = new Map<string, PreparedRoute[]>();
  for (const entry of prepared) byPath.set(entry.route.path, [...(byPath.get(entry.route.path) ?? []), entry]);
  return [...byPath].map(([path, entries]) => ({
    path,
    entries,
    match: match<Record<string, string>>(path.replace(TRAILING_SLASHES, ''), { sensitive: false, end: true, trailing: true, decode: decodeURIComponent }),
  }));
}

/** RestRoutes.find: the first path of the table that matches, as express's router finds it. */
function findRoute(paths: PreparedPath[], method: string, pathname: string): ReturnType<RestRoutes['find']> {
  for (const candidate of paths) {
    let found: ReturnType<PreparedPath['match']>;
    try {
      found = candidate.match(pathname);
    } catch {
      return undefined; // a malformed percent-encoding: express's 400
    }
    if (found) return { route: candidate.entries.find((entry) => entry.route.method === method), params: found.params };
  }
  return undefined;
}

const JSON_PARSER = express.json({ limit: JSON_BODY_LIMIT, strict: true, type: () => true });

interface Rendered {
  status: number;
  json: string;
}

function rendered(entry: PreparedRoute, data: Record<string, unknown>): Rendered {
  const response = entry.route.respond!(data, entry.shapes);
  return { status: response.status ?? entry.route.status ?? 200, json: JSON.stringify(response.body) ?? '' };
}

/**
 * A cached read's body, rendered once per route and answer: the response cache hands every hit
 * the data object it kept (schema/pipeline/use-response-cache.ts), so its REST body is shaped and
 * serialized once, and dropped with it.
 */
const renderedAnswers = new WeakMap<object, Map<PreparedRoute, Rendered>>();

function renderedOnce(entry: PreparedRoute, data: Record<string, unknown>): Rendered {
  let byRoute = renderedAnswers.get(data);
  if (!byRoute) {
    byRoute = new Map();
    renderedAnswers.set(data, byRoute);
  }
  let body = byRoute.get(entry);
  if (!body) {
    body = rendered(entry, data);
    byRoute.set(entry, body);
  }
  return body;
}

/** A request's steps on a prepared route, in the order they run. */
class RouteRunner {
  constructor(private readonly options: RouterOptions) {}

  async handleJson(entry: PreparedRoute, req: RestRequest, res: ServerResponse): Promise<void> {
    const { route, specs } = entry;
    const ctx = await this.begin(entry, req, res);
    if (!ctx) return;
    const inputs: { source: InputSource; values: Record<string, unknown> }[] = [
      { source: 'query', values: req.query },
      { source: 'path', values: req.params },
    ];
    if (route.body === 'json') inputs.push({ source: 'body', values: await this.readJsonBody(req, res) });
    if (route.body === 'multipart') {
      const fileFields = specs.filter((spec) => spec.type.toString().startsWith('Upload')).map((spec) => spec.restName);
      const form = await readMultipartForm(req, res, { maxFileBytes: this.options.maxUploadBytes, fileFields });
      inputs.push({ source: 'form', values: form.fields }, { source: 'body', values: form.files });
    }
    const variables = buildVariables(specs, inputs);
    const conditional = conditionalRequest(req);
    if (conditional) ctx.conditional = conditional;
    const result = await this.options.operations.execute(ctx, entry.operation, variables);
    const decisions = await ctx.budgets.settled();
    if (result.errors?.length) {
      sendError(res, result.errors[0], (field) => restFieldName(specs, field), decisions);
      return;
    }
    if (conditional?.notModified) return sendNotModified(res, conditional.etag!, decisions);
    const data = (result.data ?? {}) as Record<string, unknown>;
    if (conditional) {
      const { status, json } = conditional.etag ? renderedOnce(entry, data) : rendered(entry, data);
      if (status === 200) return sendTaggedJson(res, json, conditional, decisions);
    }
    const response = route.respond!(data, entry.shapes);
    sendJson(res, response.status ?? route.status ?? 200, response.body, decisions);
  }

  /**
   * An event stream route (event-stream.ts). Once the stream follows (or has answered), the
   * request's context is let go: a follower holds nothing of it while it waits for events.
   */
  async handleStream(entry: PreparedRoute, req: RestRequest, res: ServerResponse): Promise<void> {
    const early = this.options.earlyStreamRefusal?.(req.headers);
    if (early) return sendError(res, early);
    const ctx = await this.begin(entry, req, res);
    if (ctx && entry.stream) await handleEventStream(entry.stream, ctx, req, res, this.options.requestLog);
    this.options.releaseContext?.(req);
  }

  /**
   * The context, the preflight check and an upload's reservation, before any body is read;
   * undefined when the route answered already.
   */
  private async begin(entry: PreparedRoute, req: IncomingMessage, res: ServerResponse): Promise<RequestContext | undefined> {
    const { route } = entry;
    let ctx: RequestContext;
    try {
      ctx = await this.options.context(req);
    } catch (error) {
      if (!route.unavailable) throw error;
      sendJson(res, route.unavailable.status ?? 503, route.unavailable.body);
      return undefined;
    }
    if (route.requires) {
      try {
        preflightAuth(ctx, route.requires);
      } catch (error) {
        // Refused before the operation runs, so the pipeline's audit hook never sees it.
        recordRefusal(ctx, `${route.method} ${route.path}`, error);
        throw error;
      }
    }
    if (entry.reservation) await ctx.budgets.reserve(entry.reservation);
    return ctx;
  }

  /** A failure of the route's own steps: the one rule (src/refusal.ts), written as a REST error. */
  async fail(req: IncomingMessage, res: ServerResponse, entry: PreparedRoute, error: unknown): Promise<void> {
    const ctx = await this.options.context(req).catch(() => undefined);
    const decisions = ctx ? await ctx.budgets.settled().catch(() => []) : [];
    if (entry.route.body === 'multipart') res.setHeader('Connection', 'close');
    const refusal = refusalFor(error, { log: ctx?.log ?? this.options.requestLog(req), databaseOutage: this.options.databaseOutage });
    sendError(res, refusal, (field) => restFieldName(entry.specs, field), refusal.code === 'INTERNAL_SERVER_ERROR' ? [] : decisions);
  }

  private readJsonBody(req: RestRequest, res: ServerResponse): Promise<Record<string, unknown>> {
    const length = Number(req.headers['content-length'] ?? 0);
    if (!req.headers['content-type'] && length === 0 && !req.headers['transfer-encoding']) return Promise.resolve({});
    if (!/^application\/(.+\+)?json\b/i.test(req.headers['content-type'] ?? '')) {
      return Promise.reject(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
    }
    return new Promise((resolve, reject) => {
      JSON_PARSER(req as Request, res as Response, (error?: unknown) => {
        if (error) {
          const status = (error as { status?: number }).status;
          reject(
            status === 413 ? new AppError('PAYLOAD_TOO_LARGE', `JSON body exceeds ${JSON_BODY_LIMIT}`) : new AppError('BAD_USER_INPUT', 'Malformed JSON body'),
          );
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

/**
 * The route table as express handlers, one express route per path, in the table's order, with
 * its 405 right after its methods: a literal path (`/api/links/folders`) listed before a
 * parameterised one (`/api/links/:id`) then answers every method itself instead of falling
 * through to the parameter route.
 */
export function createRestRouter(routes: RestRoutes): Router {
  const router = express.Router();
  for (const { path, entries } of routes.paths) {
    const route = router.route(path);
    for (const entry of entries) {
      const method = entry.route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      route[method]((req: Request, res: Response) =>
        entry.stream ? routes.handleStream(entry, req as RestRequest, res) : routes.handle(entry, req as RestRequest, res),
      );
    }
    const methods = entries.map((entry) => entry.route.method);
    route.all((_req: Request, res: Response) => {
      res.setHeader('Allow', methods.join(', '));
      sendError(res, new AppError('METHOD_NOT_ALLOWED', `Method not allowed; use ${methods.join(', ')}`));
    });
  }
  return router;
}

function preflightAuth(ctx: RequestContext, requires: NonNullable<RestRoute['requires']>): void {
  requireViewer(ctx);
  if (requires !== 'authenticated' && !viewerHasScope(ctx, requires)) throw AppError.forbidden();
}
