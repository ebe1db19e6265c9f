import type { NextFunction, Request, Response } from 'express';
import { createYoga, type Plugin } from 'graphql-yoga';
import { processRequest, type GraphQLOperation } from 'graphql-upload-ts';
import { getSchema } from '../../schema/index.ts';
import { executeOperation, maskError } from '../../schema/execute.ts';
import type { Services } from '../services.ts';
import type { RequestContext } from '../context.ts';
import { contextFor, requestLog } from './request-context.ts';
import { AppError, HTTP_STATUS_BY_CODE } from '../errors.ts';
import { rateLimitHeaders } from '../ratelimit/rate-limiter.ts';

/**
 * GraphQL over HTTP at /graphql: graphql-yoga for queries and mutations (GraphiQL in
 * development), and the GraphQL multipart request spec (graphql-upload-ts) for uploads, which
 * runs through the same in-process executor as the REST layer.
 */
export function graphqlEndpoint(services: Services) {
  const yoga = createYoga<{ req: Request; res: Response }>({
    schema: getSchema(),
    graphqlEndpoint: '/graphql',
    graphiql: services.config.env === 'development' ? { title: 'Gateway GraphiQL', credentials: 'include' } : false,
    landingPage: false,
    multipart: false,
    logging: false,
    context: ({ req }) => contextFor(services, req),
    // Our own masking (below) needs the request context for the log line and request id.
    maskedErrors: false,
    plugins: [
      <Plugin<Record<string, unknown>, { req: Request; res: Response }>>{
        onExecute({ args }) {
          const ctx = args.contextValue as unknown as RequestContext;
          return {
            onExecuteDone({ result, setResult }) {
              if (!('errors' in result) || !result.errors) return;
              setResult({ ...result, errors: result.errors.map((error: unknown) => maskError(error, ctx)) });
            },
          };
        },
        async onResponse({ response, serverContext }) {
          if (!serverContext?.req) return;
          const ctx = await contextFor(services, serverContext.req);
          for (const [name, value] of Object.entries(rateLimitHeaders(await ctx.budgets.settled()))) response.headers.set(name, value);
        },
      },
    ],
  });

  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (req.method === 'POST' && /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
        await multipartOperation(services, req, res);
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
    await ctx.budgets.charge('upload');
    operation = await processRequest<GraphQLOperation | GraphQLOperation[]>(req, res, {
      maxFileSize: services.config.storage.maxUploadBytes,
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
  const result = await executeOperation(ctx, operation.query, operation.variables ?? {}, operation.operationName ?? undefined);
  const decisions = await ctx.budgets.settled();
  res.set(rateLimitHeaders(decisions));
  const limited = result.errors?.find((e) => e.extensions.code === 'RATE_LIMITED');
  res.status(limited ? HTTP_STATUS_BY_CODE.RATE_LIMITED : 200).json(result);
  requestLog(req).debug({ operationName: operation.operationName }, 'multipart operation');
}
