/**
 * The two answers OpenAPI 3.1 has no native words for: a server-sent event stream
 * (`GET /api/generate`) and the JSON-RPC endpoint (`POST /api/service`, one operation whose tools
 * are discovered through `tools/list`).
 */
const EVENT_PAYLOAD = {
  type: 'object',
  description: 'The `data:` of every event.',
  properties: {
    agent: { type: 'string', description: '`run`, or the agent that reports.' },
    status: { type: 'string' },
    progress: { type: ['number', 'null'] },
    message: { type: ['string', 'null'] },
    data: { description: 'Agent-specific details (the summary on the final event).' },
  },
  required: ['agent', 'status'],
};

export function streamContent(): Record<string, unknown> {
  return {
    'text/event-stream': {
      schema: {
        type: 'string',
        description:
          "Server-sent events. Each event has `id:` (its sequence, for Last-Event-ID), `event:` `progress` (an agent), `run` (the run's state) or `done` (the final event; the stream then closes), and `data:` a JSON object (x-event-payload). A `retry:` hint comes first, and comment heartbeats keep the connection open.",
      },
      'x-event-names': ['progress', 'run', 'done'],
      'x-event-payload': EVENT_PAYLOAD,
    },
  };
}

const JSON_RPC_REQUEST = {
  type: 'object',
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'] },
    method: { type: 'string', examples: ['tools/list', 'tools/call', 'initialize', 'ping'] },
    params: { type: 'object' },
  },
  required: ['jsonrpc', 'method'],
};

const JSON_RPC_RESPONSE = {
  type: 'object',
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    result: {},
    error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} }, required: ['code', 'message'] },
  },
  required: ['jsonrpc'],
};

export function jsonRpcPath(): Record<string, unknown> {
  const jsonRpcError = (description: string) => ({ description, content: { 'application/json': { schema: JSON_RPC_RESPONSE } } });
  return {
    post: {
      operationId: 'jsonRpc',
      summary: 'JSON-RPC 2.0 tool endpoint (an MCP server)',
      description:
        'The JSON-RPC 2.0 endpoint, served as a Model Context Protocol server (Streamable HTTP). `tools/list` lists the tools with their input and output schemas; `tools/call` runs one. A request without `Accept: text/event-stream` gets plain JSON. Authentication: a personal access token, or an OAuth access token from the built-in authorization server (see /.well-known/oauth-protected-resource/api/service).',
      tags: ['JSON-RPC'],
      security: [{ BearerToken: [] }],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { oneOf: [JSON_RPC_REQUEST, { type: 'array', items: JSON_RPC_REQUEST, minItems: 1 }] },
            example: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          },
        },
      },
      responses: {
        '200': {
          description: 'The JSON-RPC response (an array for a batch), as JSON, or as server-sent events for clients that accept them.',
          content: {
            'application/json': { schema: { oneOf: [JSON_RPC_RESPONSE, { type: 'array', items: JSON_RPC_RESPONSE }] } },
            'text/event-stream': { schema: { type: 'string' } },
          },
        },
        '202': { description: 'A notification: accepted, no body.' },
        '400': jsonRpcError('Not JSON (-32700), not a JSON-RPC message (-32600), or headers that disagree with the body.'),
        '401': {
          description: 'No valid bearer token.',
          headers: {
            'WWW-Authenticate': { description: '`Bearer realm="gateway", error="invalid_token", resource_metadata="..."`', schema: { type: 'string' } },
          },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
        '403': { description: 'A browser page from another origin.', content: { 'application/json': { schema: {} } } },
        '413': jsonRpcError('Body over 1 MB (-32600).'),
        '415': { description: 'A Content-Type other than application/json.', content: { 'application/json': { schema: {} } } },
        '429': {
          description: 'The client has REQUESTS_QUEUED_PER_CLIENT requests waiting for their turn already (docs/limits.md).',
          headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
        '503': {
          description: 'The bearer token cannot be checked: the database is unavailable; retry after Retry-After seconds.',
          headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  };
}

/**
 * GET /metrics (server/http/metrics.ts): Prometheus's text format, no GraphQL operation behind it.
 */
function metricsPath(): Record<string, unknown> {
  const headers = { 'Cache-Control': { description: '`no-store`.', schema: { type: 'string', const: 'no-store' } } };
  const error = (description: string) => ({ description, headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  return {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics',
      description:
        'Every metric of this instance in the Prometheus text exposition format 0.0.4: HTTP requests by route template, GraphQL operations by name, front and outcome, rate-limit refusals, job queues, ingest, generation runs, open streams, the database pool and the process (docs/operations.md, Metrics). Served here unless METRICS_PORT gives it a listener of its own (then 404 here) or METRICS_ENABLED=false. With METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>`; in production (NODE_ENV=production) without a token it is not served on this port (404). No rate budget, no access-log line. HEAD answers the same status without a body.',
      tags: ['probes'],
      security: [{}, { BearerToken: [] }],
      responses: {
        '200': {
          description: 'The metrics.',
          headers,
          content: {
            'text/plain': {
              schema: { type: 'string', description: 'Content-Type: `text/plain; version=0.0.4; charset=utf-8`.' },
              example:
                '# HELP gateway_http_requests_total HTTP requests answered...\n# TYPE gateway_http_requests_total counter\ngateway_http_requests_total{route="/api/stickies/:id",method="GET",status="200"} 3\n',
            },
          },
        },
        '401': {
          ...error('METRICS_TOKEN is set and the request does not carry it as a bearer token.'),
          headers: { ...headers, 'WWW-Authenticate': { description: '`Bearer realm="metrics"`.', schema: { type: 'string' } } },
        },
        '404': {
          description: 'Not served on this port: METRICS_PORT is set, METRICS_ENABLED=false, or production without METRICS_TOKEN.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
        '431': { description: 'Request line or headers too large (over 16 KiB); no body.' },
      },
    },
  };
}

/**
 * The Kubernetes-style probes (server/http/probes.ts): plain HTTP handlers, no GraphQL operation
 * behind them, so they are described here rather than generated from the route table.
 */
const DEPENDENCY_STATE = { type: 'string', enum: ['ok', 'unreachable', 'timeout'] };
const READINESS_CHECKS = {
  type: 'object',
  description:
    'One word per check. `redis` is present only when REDIS_URL is set; while shutting down only `migrations` is reported (nothing else is checked).',
  properties: {
    migrations: { type: 'string', enum: ['ok', 'running'] },
    database: DEPENDENCY_STATE,
    redis: DEPENDENCY_STATE,
    storage: { ...DEPENDENCY_STATE, description: 'The blob store.' },
  },
  additionalProperties: false,
};

export function probePaths(): Record<string, Record<string, unknown>> {
  const headers = { 'Cache-Control': { description: '`no-store`.', schema: { type: 'string', const: 'no-store' } } };
  const common = {
    tags: ['probes'],
    security: [{}],
  };
  const tooLarge = { '431': { description: 'Request line or headers too large (over 16 KiB); no body.' } };
  return {
    '/metrics': metricsPath(),
    '/livez': {
      get: {
        ...common,
        operationId: 'livez',
        summary: 'Liveness probe',
        description:
          'Liveness: 200 while the process serves requests. Checks no dependency (a database outage must not get the instance restarted). No credential, no rate budget, no access-log line. HEAD answers the same status without a body.',
        responses: {
          '200': {
            description: 'Alive.',
            headers,
            content: {
              'application/json': { schema: { type: 'object', properties: { status: { const: 'ok' } }, required: ['status'], additionalProperties: false } },
            },
          },
          ...tooLarge,
        },
      },
    },
    '/readyz': {
      get: {
        ...common,
        operationId: 'readyz',
        summary: 'Readiness probe',
        description:
          'Readiness: may a load balancer send this instance requests? 503 while the migrations run, while the database, Redis (when configured) or the blob store does not answer within 1 s, and from the moment shutdown begins (SIGTERM), for the whole drain delay (SHUTDOWN_DRAIN) during which the instance still serves. One result is reused for 1 s. No credential, no rate budget, no access-log line. HEAD answers the same status without a body.',
        responses: {
          '200': {
            description: 'Ready.',
            headers,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { status: { const: 'ready' }, checks: READINESS_CHECKS },
                  required: ['status', 'checks'],
                  additionalProperties: false,
                },
                example: { status: 'ready', checks: { migrations: 'ok', database: 'ok', redis: 'ok', storage: 'ok' } },
              },
            },
          },
          ...tooLarge,
          '503': {
            description: 'Not ready: shutting down, migrations running, or a dependency unreachable.',
            headers,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    status: { const: 'not_ready' },
                    checks: READINESS_CHECKS,
                    reason: {
                      type: 'string',
                      description: '`shutting down`, `migrations running`, or the failed checks (`database unreachable, redis timeout`).',
                    },
                  },
                  required: ['status', 'checks', 'reason'],
                  additionalProperties: false,
                },
                example: { status: 'not_ready', checks: { migrations: 'ok', database: 'unreachable', storage: 'ok' }, reason: 'database unreachable' },
              },
            },
          },
        },
      },
    },
  };
}
