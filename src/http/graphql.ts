import type { NextFunction, Request, Response } from 'express';
import { execute, GraphQLError, Kind, parse, specifiedRules, validate, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode, type ValidationRule } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { graphqlSseSingleConnection } from './graphql-sse.ts';
import { processRequest, type GraphQLOperation } from 'graphql-upload-ts';
import { getSchema } from '../../schema/index.ts';
import { maskError } from '../../schema/execute.ts';
import { checkOperationInputs } from '../../schema/input-guards.ts';
import type { Services } from '../services.ts';
import type { RequestContext } from '../context.ts';
import { contextFor, requestLog } from './request-context.ts';
import { AppError, HTTP_STATUS_BY_CODE, MESSAGES } from '../errors.ts';
import { rateLimitHeaders } from '../ratelimit/rate-limiter.ts';

/** Where graphql-sse clients in single-connection mode connect (distinct connections: /graphql itself). */
export const GRAPHQL_SSE_ENDPOINT = '/graphql/stream';

/**
 * GraphQL over HTTP at /graphql: graphql-yoga for queries and mutations (GraphiQL in
 * development), subscriptions over server-sent events with the graphql-sse protocol (distinct
 * connections mode at /graphql, single connection mode at /graphql/stream), and the GraphQL
 * multipart request spec (graphql-upload-ts) for uploads, executed in-process against the same
 * schema, with the same validation rules (depth limit included) and the same error masking.
 */
export function graphqlEndpoint(services: Services) {
  const yoga = createYoga<{ req: Request; res: Response }>({
    schema: getSchema(),
    graphqlEndpoint: '/graphql',
    graphiql: services.config.env === 'development' ? { title: 'Gateway GraphiQL', credentials: 'include' } : false,
    landingPage: false,
    // CORS is one policy for every front (cors.ts, CORS_ORIGINS), applied before this handler.
    cors: false,
    multipart: false,
    logging: false,
    context: async ({ req }) => {
      try {
        return await contextFor(services, req);
      } catch (error) {
        // e.g. the database is down while authenticating: a generic 500, details only in the log.
        requestLog(req).error({ err: error }, 'could not build the request context');
        throw new GraphQLError(MESSAGES.internal, { extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: requestLog(req).bindings().requestId, http: { status: 500 } } });
      }
    },
    // Our own masking (below) needs the request context for the log line and request id.
    maskedErrors: false,
    plugins: [
      graphqlSseSingleConnection(GRAPHQL_SSE_ENDPOINT),
      <Plugin<Record<string, unknown>, { req: Request; res: Response }>>{
        // The Pothos complexity plugin measures from the root fields' resolvers and skips
        // introspection (`__schema { types { fields { type { ofType ...`), so the depth limit
        // is also enforced here, on the whole document, before anything runs.
        onValidate({ addValidationRule }) {
          addValidationRule(maxDepthRule(services.config.graphql.maxDepth));
        },
        onExecute({ args, setResultAndStopExecution }) {
          const ctx = args.contextValue as unknown as RequestContext;
          const refused = checkOperationInputs(args.document, args.variableValues);
          if (refused) return setResultAndStopExecution({ errors: [requestError(refused)] });
          return {
            onExecuteDone({ result, setResult }) {
              if (!('errors' in result) || !result.errors) return;
              setResult({ ...result, errors: result.errors.map((error: unknown) => maskError(error, ctx)) });
            },
          };
        },
        onSubscribe({ args, setResultAndStopExecution }) {
          const refused = checkOperationInputs(args.document, args.variableValues);
          if (refused) setResultAndStopExecution({ errors: [requestError(refused)] });
        },
        onRequest({ url, request, endResponse }) {
          // yoga parses GET parameters with JSON.parse and answers a broken one with a 500.
          if (request.method !== 'GET') return;
          const broken = unparsableJsonParam(url.searchParams);
          if (broken) endResponse(Response.json({ errors: [{ message: `Invalid ${broken}: not a JSON object`, extensions: { code: 'BAD_USER_INPUT' } }] }, { status: 400 }));
        },
        async onResponse({ response, serverContext }) {
          // Progress streams must reach the client event by event: no proxy buffering.
          if (response.headers.get('content-type')?.startsWith('text/event-stream')) response.headers.set('X-Accel-Buffering', 'no');
          if (!serverContext?.req) return;
          const ctx = await contextFor(services, serverContext.req).catch(() => undefined);
          const decisions = ctx ? await ctx.budgets.settled().catch(() => []) : [];
          for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) response.headers.set(name, value);
        },
      },
    ],
  });

  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (req.method === 'POST' && /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
        if (declaredTooLarge(req, services.config.storage.maxUploadBytes)) {
          res.setHeader('Connection', 'close');
          res.status(413).json({ errors: [{ message: `Request body exceeds the upload limit of ${services.config.storage.maxUploadBytes} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
          return;
        }
        await multipartOperation(services, req, res);
        return;
      }
      if (req.method === 'POST' && !GRAPHQL_POST_TYPES.test(req.headers['content-type'] ?? 'application/json')) {
        // yoga answers an unknown body type with a bare 415; say what is accepted.
        res.status(415).json({ errors: [{ message: 'Content-Type must be application/json (or application/graphql, a form, or multipart/form-data for uploads)', extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } }] });
        return;
      }
      await yoga.handle(req, res);
    } catch (error) {
      next(error);
    }
  };
}

async function multipartOperation(services: Services, req: Request, res: Response): Promise<void> {
  const ctx = await contextFor(services, req);
  let operation: GraphQLOperation | GraphQLOperation[];
  try {
    await ctx.budgets.prepay('upload');
    operation = await processRequest<GraphQLOperation | GraphQLOperation[]>(req, res, {
      // busboy (inside) refuses a file that *reaches* maxFileSize; a file of exactly the limit is allowed.
      maxFileSize: services.config.storage.maxUploadBytes + 1,
      maxFiles: 5,
    });
  } catch (error) {
    const status = error instanceof AppError ? error.status : ((error as { status?: number }).status ?? 400);
    const code = error instanceof AppError ? error.code : status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_USER_INPUT';
    const decisions = await ctx.budgets.settled();
    res.set(rateLimitHeaders(decisions)).setHeader('Connection', 'close');
    res.status(status).json({ errors: [{ message: (error as Error).message, extensions: { code } }] });
    return;
  }
  if (Array.isArray(operation)) {
    res.status(400).json({ errors: [{ message: 'Batched multipart operations are not supported', extensions: { code: 'BAD_USER_INPUT' } }] });
    return;
  }
  // The client's document: parsed and validated here (with the depth limit), a mistake in it is
  // a 400 like on any other /graphql request, and it is not added to the prepared-document cache.
  let document: DocumentNode;
  try {
    document = parse(operation.query);
  } catch (error) {
    res.status(400).json({ errors: [{ message: (error as Error).message, extensions: { code: 'BAD_USER_INPUT' } }] });
    return;
  }
  const invalid = validate(getSchema(), document, [...specifiedRules, maxDepthRule(services.config.graphql.maxDepth)]);
  if (invalid.length > 0) {
    res.status(400).json({ errors: invalid.map((error) => ({ message: error.message, extensions: { code: 'BAD_USER_INPUT' } })) });
    return;
  }
  const refusedInput = checkOperationInputs(document, operation.variables ?? {});
  if (refusedInput) {
    res.status(400).json({ errors: [{ message: refusedInput.message, extensions: refusedInput.extensions }] });
    return;
  }
  const executed = await execute({
    schema: getSchema(),
    document,
    variableValues: operation.variables ?? {},
    operationName: operation.operationName ?? undefined,
    contextValue: ctx,
  });
  const result = executed.errors ? { ...executed, errors: executed.errors.map((error) => maskError(error, ctx)) } : executed;
  const decisions = await ctx.budgets.settled();
  res.set(rateLimitHeaders(decisions));
  // Refusals of the request itself keep their HTTP status (429, 413), as on the REST route;
  // any other error is a GraphQL execution error (200), as on every other /graphql request.
  const refused = result.errors?.find((e) => e.extensions.code === 'RATE_LIMITED' || e.extensions.code === 'PAYLOAD_TOO_LARGE');
  const status = refused ? HTTP_STATUS_BY_CODE[refused.extensions.code as 'RATE_LIMITED' | 'PAYLOAD_TOO_LARGE'] : 200;
  if (status === HTTP_STATUS_BY_CODE.PAYLOAD_TOO_LARGE) res.setHeader('Connection', 'close');
  res.status(status).json(result);
  requestLog(req).debug({ operationName: operation.operationName }, 'multipart operation');
}

/** Body types yoga reads on POST (multipart is handled before it). */
const GRAPHQL_POST_TYPES = /^\s*application\/(json|graphql|graphql\+json|graphql-response\+json|x-www-form-urlencoded)\s*(;|$)/i;

/** A GraphQL request error (400) for input refused before execution. */
function requestError(error: AppError): GraphQLError {
  return new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status: 400 } } });
}

/** The name of a GET parameter that must be a JSON object and is not, if any. */
function unparsableJsonParam(params: URLSearchParams): string | undefined {
  for (const name of ['variables', 'extensions']) {
    const text = params.get(name);
    if (text === null || text === '') continue;
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null && (typeof value !== 'object' || Array.isArray(value))) return name;
    } catch {
      return name;
    }
  }
  return undefined;
}

/**
 * A multipart request whose declared Content-Length already exceeds what could be accepted
 * (the upload limit plus room for the operation and map fields): refused before reading a byte,
 * as the REST upload route does, instead of reading until the limit is reached.
 */
function declaredTooLarge(req: Request, maxUploadBytes: number): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > maxUploadBytes + MULTIPART_OVERHEAD_BYTES;
}

/** Room for the operations/map fields and part headers beside the file. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

/** Refuses operations nested deeper than `maxDepth` fields (fragments expanded, introspection included). */
export function maxDepthRule(maxDepth: number): ValidationRule {
  return (context) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const fragmentDepths = new Map<string, number>();
    const depthOf = (selectionSet: SelectionSetNode, visiting: Set<string>): number => {
      let max = 0;
      for (const selection of selectionSet.selections) {
        let depth = 0;
        if (selection.kind === Kind.FIELD) depth = 1 + (selection.selectionSet ? depthOf(selection.selectionSet, visiting) : 0);
        else if (selection.kind === Kind.INLINE_FRAGMENT) depth = depthOf(selection.selectionSet, visiting);
        else {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          if (fragment && !visiting.has(name)) {
            if (!fragmentDepths.has(name)) {
              visiting.add(name);
              fragmentDepths.set(name, depthOf(fragment.selectionSet, visiting));
              visiting.delete(name);
            }
            depth = fragmentDepths.get(name)!;
          }
        }
        max = Math.max(max, depth);
      }
      return max;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > maxDepth) {
          context.reportError(new GraphQLError(`Query depth ${depth} exceeds the limit of ${maxDepth}`, { nodes: [node], extensions: { code: 'BAD_USER_INPUT' } }));
        }
      },
    };
  };
}
