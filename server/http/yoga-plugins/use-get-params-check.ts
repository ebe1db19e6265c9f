import type { Plugin } from 'graphql-yoga';

/** GET /graphql: `variables` and `extensions` must be JSON objects (yoga answers a broken one with a 500; this is a 400). */
export function useGetParamsCheck(): Plugin {
  return {
    onRequest({ url, request, endResponse }) {
      if (request.method !== 'GET') return;
      const broken = unparsableJsonParam(url.searchParams);
      if (broken)
        endResponse(Response.json({ errors: [{ message: `Invalid ${broken}: not a JSON object`, extensions: { code: 'BAD_USER_INPUT' } }] }, { status: 400 }));
    },
  };
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
