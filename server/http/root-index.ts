/**
 * What `GET /` answers a client that is not a browser and has no credentials (curl, a script): a
 * small public index of where things are and how to authenticate, instead of a bare 401. Nothing
 * in it depends on the caller or the configuration's secrets.
 */
export interface RootIndex {
  service: string;
  version: string;
  description: string;
  dashboard: string;
  graphql: string;
  health: string;
  /** The REST layer's OpenAPI 3.1 document (also as YAML at /openapi.yaml). */
  openapi: string;
  /** The REST API reference page, rendered from that document. */
  api_reference: string;
  docs: string;
  authentication: { header: string; example: string; how_to_get_a_key: string };
}

export function rootIndex(version: string): RootIndex {
  return {
    service: 'gateway',
    version,
    description: 'GraphQL gateway with a REST compatibility layer and a web dashboard',
    dashboard: '/ (open it in a browser; you will be asked to sign in)',
    graphql: '/graphql',
    health: '/health',
    openapi: '/openapi.json',
    api_reference: '/api-docs',
    docs: 'docs/rest.md in the repository (REST endpoints), docs/graphql.md (GraphQL), docs/authentication.md (keys and scopes)',
    authentication: {
      header: 'X-API-Key',
      example: 'curl -H "X-API-Key: <your key>" http://<host>/api/returns/comparison',
      how_to_get_a_key: 'Sign in to the dashboard and create one under "API keys & tokens", or see docs/authentication.md',
    },
  };
}
