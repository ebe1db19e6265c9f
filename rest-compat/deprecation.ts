/**
 * A deprecated REST route says so on every answer (docs/usage-and-deprecation.md):
 * `Deprecation: @<unix seconds>` (RFC 9745), `Sunset: <HTTP-date>` (RFC 8594) and
 * `Link: <docs>; rel="deprecation"`. A route is deprecated on its row (`deprecated`) or through a
 * deprecated field its operation selects (src/usage/deprecation.ts). Calls of a route deprecated
 * on its row are recorded here with the caller's credential (a field's calls are recorded by the
 * pipeline, schema/pipeline/use-usage.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DocumentNode } from 'graphql';
import { getOperationAST } from 'graphql';
import { getSchema } from '../schema/index.ts';
import type { RequestContext } from '../src/context.ts';
import { deprecatedFieldsIn, deprecationHeaders, operationDeprecation, type Deprecation } from '../src/usage/deprecation.ts';
import { routeName } from '../src/usage/deprecation-catalog.ts';
import type { RestRoute } from './route.ts';

/** The route's deprecation: its row's own, else the one of a deprecated field its operation selects. */
export function routeDeprecation(route: RestRoute, document: DocumentNode): Deprecation | undefined {
  return operationDeprecation(route.deprecated, deprecatedFieldsIn(getSchema(), document));
}

const headersOf = new WeakMap<RestRoute, Record<string, string> | null>();

/**
 * Sets the deprecation headers on the answer of a deprecated route (before anything is written,
 * so errors carry them too) and records the caller of a route deprecated on its row.
 */
export function announceDeprecation(
  entry: { route: RestRoute; operation: { document: DocumentNode } },
  req: IncomingMessage,
  res: ServerResponse,
  context: (req: IncomingMessage) => Promise<RequestContext>,
): void {
  let headers = headersOf.get(entry.route);
  if (headers === undefined) {
    const deprecation = routeDeprecation(entry.route, entry.operation.document);
    headers = deprecation ? deprecationHeaders(deprecation) : null;
    headersOf.set(entry.route, headers);
  }
  if (!headers) return;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (entry.route.deprecated) void recordRouteCall(entry.route, entry.operation.document, context(req));
}

async function recordRouteCall(route: RestRoute, document: DocumentNode, context: Promise<RequestContext>): Promise<void> {
  // The context is the request's own (made once per request): a failure to build it is the route's to answer.
  const ctx = await context.catch(() => undefined);
  if (!ctx?.viewer) return;
  ctx.services.usage.recordDeprecated({
    credentialKind: ctx.viewer.credential.kind,
    credentialId: ctx.viewer.credential.id,
    userId: ctx.viewer.user.id,
    subjectKind: 'route',
    subject: routeName(route),
    front: 'rest',
    operation: getOperationAST(document)?.name?.value ?? 'anonymous',
    at: new Date(),
  });
}

/** A deprecated route's OpenAPI responses, each declaring the three headers every answer carries. */
export function withDeprecationHeaders(responses: Record<string, unknown>, deprecation: Deprecation | undefined): Record<string, unknown> {
  if (!deprecation) return responses;
  const values = deprecationHeaders(deprecation);
  const declared = {
    Deprecation: { description: 'RFC 9745: when the route was deprecated (`@` and Unix seconds).', schema: { type: 'string', example: values.Deprecation } },
    Sunset: { description: 'RFC 8594: when it may stop working (an HTTP-date).', schema: { type: 'string', example: values.Sunset } },
    Link: { description: 'The documentation of the deprecation (`rel="deprecation"`).', schema: { type: 'string', example: values.Link } },
  };
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const described = response as { headers?: Record<string, unknown> };
      return [status, { ...described, headers: { ...described.headers, ...declared } }];
    }),
  );
}
