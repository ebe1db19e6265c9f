/**
 * Conditional requests on GraphQL over GET (docs/caching.md), as the REST routes have them: the
 * request's If-None-Match goes to the pipeline (ctx.conditional; schema/pipeline/use-response-cache.ts
 * decides, before the operation runs, whether the client holds the current answer of a cached
 * read), then the response is a 304 with no body, or carries the answer's ETag and
 * `Cache-Control: private, no-cache`. POST requests are not conditional (RFC 9110 13.1.2 leaves a
 * POST's If-None-Match to the resource, and GraphQL clients that want revalidation use GET).
 * Listed before the pipeline's plugins, so the conditional part is on the context first.
 */
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { ConditionalRequest } from '../../../src/context.ts';
import { CACHE_CONTROL, conditionalRequest } from '../../../rest-compat/conditional.ts';

export function useConditionalGet(): Plugin<Record<string, unknown>, { req: IncomingMessage }> {
  const conditionals = new WeakMap<IncomingMessage, ConditionalRequest>();
  return {
    onExecute({ args }) {
      const ctx = args.contextValue as { req?: IncomingMessage; conditional?: ConditionalRequest };
      const conditional = ctx.req && conditionalRequest(ctx.req);
      if (!conditional || !ctx.req) return;
      ctx.conditional = conditional;
      conditionals.set(ctx.req, conditional);
    },
    onResultProcess({ serverContext, setResultProcessor, acceptableMediaTypes }) {
      const conditional = serverContext?.req && conditionals.get(serverContext.req);
      if (!conditional?.notModified || !conditional.etag) return;
      const etag = conditional.etag;
      setResultProcessor(
        (_result, fetchAPI) => new fetchAPI.Response(null, { status: 304, headers: { ETag: etag, 'Cache-Control': CACHE_CONTROL } }),
        acceptableMediaTypes[0] ?? 'application/json',
      );
    },
    onResponse({ response, serverContext }) {
      const conditional = serverContext?.req && conditionals.get(serverContext.req);
      if (!conditional?.etag || response.status !== 200) return;
      response.headers.set('ETag', conditional.etag);
      response.headers.set('Cache-Control', CACHE_CONTROL);
    },
  };
}
