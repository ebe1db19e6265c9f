import type { Scope } from '../src/auth/scopes.ts';
import { snakeName } from '../src/util/snake-case.ts';
import type { ShapeAt } from './shape.ts';
import type { Deprecation } from '../src/usage/deprecation.ts';

export { snakeName };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A REST endpoint as data: which GraphQL operation it runs, where its variables come from and
 * how the result becomes the documented body. The router (router.ts) is the only code that
 * turns these into HTTP handlers.
 */
interface RouteBase {
  method: HttpMethod;
  /** Express path syntax, e.g. `/api/stickies/:id`. */
  path: string;
  /** One GraphQL operation; its variable definitions type and validate the REST inputs. */
  operation: string;
  /** REST parameter name -> variable name, where it is not simply the camelCase of the snake_case name. */
  params?: Record<string, string>;
  /** Request body: none (default), JSON object, or multipart form (one file field). */
  body?: 'none' | 'json' | 'multipart';
  /** Checked before the body is read (uploads): credential and scope, as the schema would. */
  requires?: Scope | 'authenticated';
  /** Success status (default 200). */
  status?: number;
  /**
   * The answer when the request context cannot be built at all (the database that checks the
   * credential is down). Health checks say `unhealthy` instead of failing with a 500.
   */
  unavailable?: RestResponse;
  /** One line for the README / OpenAPI summary. */
  summary: string;
  /**
   * The external service the operation may call when one is configured: its failure is 502, its
   * silence past the timeout 504 (documented in the OpenAPI document).
   */
  upstream?: string;
  /**
   * Deprecated on its own (an alias kept for old clients): its answers carry the Deprecation,
   * Sunset and Link headers and OpenAPI marks it. A route that selects a deprecated field is
   * deprecated through it without saying so here (rest-compat/deprecation.ts).
   */
  deprecated?: Deprecation;
}

/** A route answered with one JSON body. */
export interface JsonRoute extends RouteBase {
  /** Turns the operation's data into the response body. */
  respond: Responder;
  stream?: never;
}

/**
 * A route answered with a server-sent event stream of a run's progress (event-stream.ts): its
 * `operation` starts a run; `stream` says how to find a run to follow instead and which
 * subscription delivers the events.
 */
export interface StreamRoute extends RouteBase {
  stream: RunEventStream;
  respond?: never;
}

export type RestRoute = JsonRoute | StreamRoute;

/** The pieces of a resumable run event stream, each a GraphQL operation of the schema. */
export interface RunEventStream {
  /** Query parameter naming a run to follow instead of starting one; `find` gets it as $runId. */
  followParam: string;
  /** Query parameter that may carry the last event id instead of the Last-Event-ID header. */
  lastEventParam: string;
  /** The result field of `operation` (the started run). */
  startField: string;
  /** Looks up one run ($runId) at `field`. */
  find: { operation: string; field: string };
  /** The caller's newest run as a one-edge connection at `field` (a reconnect with no run id). */
  latest: { operation: string; field: string };
  /** Subscription ($runId, $after) whose source stream yields events (with `sequence`) and heartbeats (with `at`). */
  subscription: { operation: string };
  /** The SSE `event:` name of an event payload. */
  eventName: (event: StreamEvent) => string;
  /** The event's `data:` JSON. */
  payload: (event: StreamEvent) => unknown;
  /** True for the event after which the stream closes. */
  isFinal: (event: StreamEvent) => boolean;
  /** The `retry:` hint sent first, in ms. */
  retryMs: number;
}

/** A run as `find`, `latest` and `operation` return it. */
export interface StreamRun {
  id: string;
  state: string;
  lastSequence: number;
  finished: boolean;
}

export interface StreamEvent {
  sequence: number;
  [field: string]: unknown;
}

export interface RestResponse {
  status?: number;
  body: unknown;
}

/**
 * What a responder makes of the operation's data, as data, so the OpenAPI document (openapi/)
 * can describe the body without running it.
 */
export type ResponseShape = { kind: 'single' | 'list' | 'array'; field: string } | { kind: 'bare'; field: string; statuses: number[] } | { kind: 'empty' };

/** `shapeAt`: the route's snake_casing, compiled from its operation (shape.ts). */
export type Responder = ((data: Record<string, unknown>, shapeAt: ShapeAt) => RestResponse) & { shape: ResponseShape };

function responder(shape: ResponseShape, respond: (data: Record<string, unknown>, shapeAt: ShapeAt) => RestResponse): Responder {
  return Object.assign(respond, { shape });
}

/** The routes of a module whose operations call `upstream` (see RouteBase.upstream). */
export function withUpstream(upstream: string, routes: RestRoute[]): RestRoute[] {
  return routes.map((route) => ({ ...route, upstream }));
}

/** `{"data": {...}}`: a single record. */
export function single(field: string): Responder {
  return responder({ kind: 'single', field }, (data, shapeAt) => ({ body: { data: shapeAt(field)(data[field]) } }));
}

/**
 * The value itself, snake_cased (for bodies the spec fixes, like `{"status": "healthy"}`);
 * `status` picks the answer's status from the value (`statuses`: every one it can pick).
 */
export function bare(field: string, status?: { statuses: number[]; of: (value: Record<string, unknown>) => number }): Responder {
  return responder({ kind: 'bare', field, statuses: status?.statuses ?? [200] }, (data, shapeAt) => {
    const value = data[field] as Record<string, unknown>;
    return { status: status?.of(value), body: shapeAt(field)(value) };
  });
}

interface Connection {
  edges: { node: unknown }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** A relay connection in an operation's data as a front shows a page: its rows and the cursor of the next page. */
export function connectionPage(data: Record<string, unknown>, field: string): { rows: unknown[]; nextCursor: string | null } {
  const connection = data[field] as Connection;
  return { rows: connection.edges.map((edge) => edge.node), nextCursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null };
}

/** `{"data": [...], "pagination": {...}}`: a page of a list. */
export function list(field: string): Responder {
  return responder({ kind: 'list', field }, (data, shapeAt) => {
    const page = connectionPage(data, field);
    const shapeRow = shapeAt(`${field}.edges.node`);
    return { body: { data: page.rows.map(shapeRow), pagination: { has_more: page.nextCursor !== null, next_cursor: page.nextCursor } } };
  });
}

/** `{"data": [...]}` for a short list that never pages. */
export function array(field: string): Responder {
  return responder({ kind: 'array', field }, (data, shapeAt) => ({ body: { data: shapeAt(field)(data[field]) } }));
}

/** 204 without a body. */
export const noContent: Responder = responder({ kind: 'empty' }, () => ({ status: 204, body: null }));

export function camelName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}
