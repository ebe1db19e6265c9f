import { getOperationAST, type ExecutionResult } from 'graphql';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';

/**
 * The graphql-sse protocol's single connection mode for graphql-yoga (distinct connections mode
 * is yoga's own SSE at /graphql): graphql-sse's handler implements the protocol, this glue runs
 * each operation through yoga's envelop (our context, validation rules, error masking).
 *
 * Why our own glue instead of @graphql-yoga/plugin-graphql-sse: graphql-sse only treats a value
 * with a `data` key as a result, and a refused operation (validation errors, or a subscribe
 * resolver that throws: NOT_FOUND, FORBIDDEN...) comes back as `{ errors }`, which it then
 * misreads as operation arguments ("Unable to detect operation AST", 400). Here such results
 * carry `data: null`, so the client receives the real errors.
 */
export function graphqlSseSingleConnection(endpoint: string): Plugin<Record<string, unknown>, YogaInitialContext> {
  const serverContexts = new WeakMap<Request, object>();
  let handler: ((request: Request) => Promise<Response>) | undefined;
  return {
    onYogaInit({ yoga }) {
      handler = createHandler(
        {
          async onSubscribe(req, params) {
            const enveloped = yoga.getEnveloped({ ...serverContexts.get(req.raw), request: req.raw, params });
            const document = enveloped.parse(params.query);
            const errors = enveloped.validate(enveloped.schema, document);
            if (errors.length > 0) return { data: null, errors };
            const contextValue = await enveloped.contextFactory();
            const args = { schema: enveloped.schema, document, contextValue, variableValues: params.variables, operationName: params.operationName };
            const isSubscription = getOperationAST(document, params.operationName)?.operation === 'subscription';
            const result = (await (isSubscription ? enveloped.subscribe(args) : enveloped.execute(args))) as ExecutionResult | AsyncIterable<ExecutionResult>;
            if (Symbol.asyncIterator in result || 'data' in result) return result;
            return { ...result, data: null };
          },
        },
        yoga.fetchAPI,
      );
    },
    onRequest({ request, endResponse, serverContext }) {
      const [path] = request.url.split('?');
      if (!handler || !path?.endsWith(endpoint)) return;
      serverContexts.set(request, serverContext);
      return handler(request).then(endResponse);
    },
  };
}
