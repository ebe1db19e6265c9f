/**
 * The OpenAPI 3.1 document of the REST layer, generated from the route table (routes/), each
 * route's operation (its variables: parameters and bodies; its selection: the response) and the
 * schema's own facts (a root field's scope, rate budget and page size). Nothing here restates a
 * route: a new route is described by adding it to the table.
 */
import { getOperationAST, GraphQLObjectType, parse, type DocumentNode, type GraphQLField, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { getSchema } from '../../schema/index.ts';
import { operationBudget } from '../../schema/plugins/rate-budget.ts';
import { MESSAGES } from '../../src/errors.ts';
import type { Budget } from '../../src/ratelimit/rate-limiter.ts';
import { variableSpecs, type VariableSpec } from '../params.ts';
import type { RestRoute } from '../route.ts';
import { variablesSchema, type JsonSchema } from '../variables-schema.ts';
import { fieldSchema, type Fragments } from './selection-schema.ts';
import { jsonRpcPath, probePaths, streamContent } from './special-paths.ts';
import { webhooksSection } from './webhooks.ts';
import { routeDeprecation, withDeprecationHeaders } from '../deprecation.ts';
import { deprecationNote } from '../../src/usage/deprecation.ts';

export interface DocumentOptions {
  version: string;
}

type Auth = { kind: 'public' } | { kind: 'authenticated' } | { kind: 'scope'; scope: string };

const SECURITY_SCHEMES = {
  ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key (`sk_` + 32 hex).' },
  BearerToken: { type: 'http', scheme: 'bearer', description: 'A personal access token (`pat_` + 32 hex), an API key, or a session token.' },
  SessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'sso_token',
    description: 'The SSO session cookie; writes also need `X-CSRF-Protection` or a JSON body.',
  },
};

export function openApiDocument(routes: RestRoute[], options: DocumentOptions): Record<string, unknown> {
  const schema = getSchema();
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const operation = operationObject(schema, route);
    // Two routes may run one operation (/health and /api/health): the path tells them apart.
    if (operationIds.has(operation.operationId as string))
      operation.operationId = `${operation.operationId as string}_${route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`;
    operationIds.add(operation.operationId as string);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  paths['/api/service'] = jsonRpcPath();
  Object.assign(paths, probePaths());
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gateway REST API',
      version: options.version,
      description:
        'The REST compatibility layer of the gateway: every route runs one GraphQL operation of the same schema (see /graphql), so permissions, validation and rate limits are the same on every front. Generated from the route table. ' +
        'On every path, a method the path does not list answers 405 with an `Allow` header, and a CORS preflight (OPTIONS) answers 204, with `Access-Control-Allow-*` headers only for the origins in CORS_ORIGINS.',
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: '/', description: 'This service' }],
    tags: [...new Set(routes.map(tagOf)), 'JSON-RPC', 'probes'].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    paths,
    webhooks: webhooksSection(),
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: {
        Error: {
          type: 'object',
          properties: { error: { type: 'string', description: 'What went wrong, in words.' } },
          required: ['error'],
          additionalProperties: false,
        },
        Pagination: {
          type: 'object',
          properties: { has_more: { type: 'boolean' }, next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page.' } },
          required: ['has_more', 'next_cursor'],
          additionalProperties: false,
        },
      },
      headers: RATE_LIMIT_HEADERS,
    },
  };
}

function operationObject(schema: GraphQLSchema, route: RestRoute): Record<string, unknown> {
  const document = parse(route.operation);
  const operation = getOperationAST(document)!;
  const specs = variableSpecs(route, document);
  const root = rootField(schema, operation);
  const auth = authOf(root.field);
  const budget = operationBudget(schema, document);
  const deprecation = routeDeprecation(route, document);
  const pathNames = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1]!);
  const variables = variablesSchema(schema, document, specs) as unknown as { properties: Record<string, JsonSchema>; required?: string[] };
  const inPath = specs.filter((spec) => pathNames.includes(spec.restName));
  const rest = specs.filter((spec) => !pathNames.includes(spec.restName));
  const inBody = route.body === 'json' || route.body === 'multipart' ? rest : [];
  const inQuery = route.body === 'json' || route.body === 'multipart' ? [] : rest;
  return {
    operationId: operation.name?.value ?? `${route.method.toLowerCase()}${route.path}`,
    summary: firstSentence(route.summary),
    description: `${deprecation ? `**${deprecationNote(deprecation)}**\n\n` : ''}${route.summary}\n\nGraphQL operation:\n\n\`\`\`graphql\n${route.operation.replace(/\n\s+/g, '\n  ')}\n\`\`\``,
    tags: [tagOf(route)],
    ...(deprecation ? { deprecated: true } : {}),
    ...(auth.kind === 'public' ? { security: [{}] } : { security: securityFor(auth) }),
    parameters: [
      ...inPath.map((spec) => parameter(spec, 'path', variables, true)),
      ...inQuery.map((spec) => parameter(spec, 'query', variables, variables.required?.includes(spec.restName) ?? false)),
      ...(route.stream ? streamQuery(route) : []),
      ...(route.method === 'GET' && !route.stream ? [IF_NONE_MATCH] : []),
    ],
    ...(inBody.length > 0 || route.body === 'json' ? { requestBody: requestBody(route, inBody, variables) } : {}),
    responses: withDeprecationHeaders(
      responses(schema, route, document, root, { auth, budget, hasInput: specs.length > 0 || route.body !== undefined, hasPathId: inPath.length > 0 }),
      deprecation,
    ),
    ...(auth.kind === 'scope' ? { 'x-required-scope': auth.scope } : {}),
    ...(budget ? { 'x-rate-budget': budget } : {}),
  };
}

function parameter(spec: VariableSpec, where: 'path' | 'query', variables: { properties: Record<string, JsonSchema> }, required: boolean) {
  const { description, ...schema } = variables.properties[spec.restName] ?? {};
  return {
    name: spec.restName,
    in: where,
    required: where === 'path' ? true : required,
    ...(typeof description === 'string' ? { description } : {}),
    schema,
    ...(where === 'query' && schema.type === 'array'
      ? { style: 'form', explode: false, description: `${typeof description === 'string' ? `${description} ` : ''}(comma-separated)` }
      : {}),
  };
}

function requestBody(route: RestRoute, specs: VariableSpec[], variables: { properties: Record<string, JsonSchema>; required?: string[] }) {
  const properties = Object.fromEntries(specs.map((spec) => [spec.restName, variables.properties[spec.restName] ?? {}]));
  const required = (variables.required ?? []).filter((name) => specs.some((spec) => spec.restName === name));
  if (route.body === 'multipart') {
    const form = Object.fromEntries(
      specs.map((spec) => [
        spec.restName,
        spec.type.toString().startsWith('Upload')
          ? { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' }
          : properties[spec.restName],
      ]),
    );
    return { required: true, content: { 'multipart/form-data': { schema: { type: 'object', properties: form, required, additionalProperties: false } } } };
  }
  return {
    required: required.length > 0,
    content: { 'application/json': { schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false } } },
  };
}

interface ResponseFacts {
  auth: Auth;
  budget: Budget | undefined;
  hasInput: boolean;
  hasPathId: boolean;
}

function responses(schema: GraphQLSchema, route: RestRoute, document: DocumentNode, root: RootField, facts: ResponseFacts): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const headers = facts.budget
    ? { RateLimit: { $ref: '#/components/headers/RateLimit' }, 'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' } }
    : undefined;
  if (route.stream) {
    out['200'] = { description: "The run's progress as server-sent events.", content: streamContent(), ...(headers ? { headers } : {}) };
    out['204'] = { description: 'Nothing more to send: the run is finished and its final event was seen (EventSource stops reconnecting).' };
  } else {
    const shape = route.respond.shape;
    const body = successBody(schema, root, shape, fragmentsOf(document));
    const statuses = shape.kind === 'empty' ? [204] : shape.kind === 'bare' ? shape.statuses : [route.status ?? 200];
    for (const status of statuses) {
      out[String(status)] =
        status === 204
          ? { description: 'Done; no body.', ...(headers ? { headers } : {}) }
          : { description: status >= 500 ? 'Unhealthy.' : 'Success.', content: { 'application/json': { schema: body } }, ...(headers ? { headers } : {}) };
    }
    if (route.method === 'GET' && out['200']) conditionalResponses(out, root);
    if (route.unavailable) {
      // The answer when the credential cannot even be checked (the database is down).
      const status = String(route.unavailable.status ?? 503);
      const unavailable = literalSchema(route.unavailable.body);
      const existing = out[status] as { content?: { 'application/json': { schema: JsonSchema } } } | undefined;
      const schemas = existing?.content ? [existing.content['application/json'].schema, unavailable] : [unavailable];
      out[status] = {
        description: 'Unhealthy, or the database is unreachable.',
        content: { 'application/json': { schema: schemas.length > 1 ? { anyOf: schemas } : unavailable } },
      };
    }
  }
  const error = (description: string, example?: string, extraHeaders?: Record<string, unknown>) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, ...(example ? { example: { error: example } } : {}) } },
    ...(extraHeaders ? { headers: extraHeaders } : {}),
  });
  if (facts.hasInput)
    out['400'] ??= error('Invalid input: a parameter or body field is missing, malformed or out of range.', 'Invalid limit: must be at most 200');
  if (facts.auth.kind !== 'public') {
    out['401'] = {
      ...error('No valid credential.', MESSAGES.invalidApiKey),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: { apiKey: { value: { error: MESSAGES.invalidApiKey } }, session: { value: { error: MESSAGES.invalidSession } } },
        },
      },
    };
    out['403'] = error('The credential lacks the scope, or the caller is not a member of the organization.', MESSAGES.insufficientPermissions);
  }
  if (facts.hasPathId || facts.hasInput) out['404'] ??= error("Not found (or not the caller's).", MESSAGES.notFound);
  if (root.kind === 'mutation') out['409'] = error("Conflicts with the record's state.");
  if (route.body === 'json' || route.body === 'multipart') {
    out['408'] = error('Without a valid credential, the body did not arrive within ANONYMOUS_BODY_TIMEOUT (the connection closes).');
    out['413'] = error('The body is too large.');
    out['415'] = error('Unsupported content type.', 'Content-Type must be application/json');
  }
  // Every route can answer 429: a client with REQUESTS_QUEUED_PER_CLIENT requests waiting already (docs/limits.md).
  const refusals = [
    facts.budget ? `the \`${facts.budget}\` rate budget is spent` : '',
    route.stream ? 'the caller holds STREAMS_PER_USER open event streams already' : '',
    'the client has REQUESTS_QUEUED_PER_CLIENT requests waiting for their turn already',
  ].filter(Boolean);
  out['429'] = error(`${capitalise(refusals.join(', or '))}.`, 'Rate limit exceeded', {
    'Retry-After': { $ref: '#/components/headers/Retry-After' },
    ...(facts.budget ? headers : {}),
  });
  if (route.upstream) {
    out['502'] = error(`${capitalise(route.upstream)} failed or answered something unreadable.`);
    out['504'] = error(`${capitalise(route.upstream)} did not answer in time.`);
  }
  // Node's HTTP parser refuses a request line or headers over 16 KiB before any route runs.
  out['431'] = { description: 'Request line or headers too large (over 16 KiB); no body.' };
  out['500'] = error('An unexpected failure (details only in the log).', MESSAGES.internal);
  out['503'] ??= error('A dependency (the database) is unavailable; retry.');
  return out;
}

function successBody(schema: GraphQLSchema, root: RootField, shape: NonNullable<RestRoute['respond']>['shape'], fragments: Fragments): JsonSchema {
  if (shape.kind === 'empty') return {};
  const value = fieldSchema(schema, root.parent, root.node, fragments);
  const object = { type: 'object', additionalProperties: false } as const;
  switch (shape.kind) {
    case 'bare':
      return value;
    case 'single':
      return { ...object, properties: { data: value }, required: ['data'] };
    case 'array':
      return { ...object, properties: { data: value }, required: ['data'] };
    case 'list': {
      const edges = ((value.properties as Record<string, JsonSchema>).edges as { items: JsonSchema }).items;
      const node = (edges.properties as Record<string, JsonSchema>).node;
      return {
        ...object,
        properties: { data: { type: 'array', items: node }, pagination: { $ref: '#/components/schemas/Pagination' } },
        required: ['data', 'pagination'],
      };
    }
  }
}

interface RootField {
  kind: OperationDefinitionNode['operation'];
  parent: GraphQLObjectType;
  node: Parameters<typeof fieldSchema>[2];
  field: GraphQLField<unknown, unknown>;
}

function rootField(schema: GraphQLSchema, operation: OperationDefinitionNode): RootField {
  const parent = schema.getRootType(operation.operation)!;
  const node = operation.selectionSet.selections.find((selection) => selection.kind === 'Field');
  if (!node || node.kind !== 'Field') throw new Error(`${operation.name?.value}: no root field`);
  return { kind: operation.operation, parent, node, field: parent.getFields()[node.name.value]! };
}

/** Who may call a root field: its `authScopes` (scope-auth plugin) as the schema states them. */
function authOf(field: GraphQLField<unknown, unknown>): Auth {
  const scopes = (field.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions?.authScopes;
  if (scopes === undefined) return { kind: 'public' };
  if (typeof scopes === 'object' && scopes !== null && typeof (scopes as { scope?: unknown }).scope === 'string')
    return { kind: 'scope', scope: (scopes as { scope: string }).scope };
  return { kind: 'authenticated' };
}

function securityFor(auth: Auth): Record<string, string[]>[] {
  const scopes = auth.kind === 'scope' ? [auth.scope] : [];
  return Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: scopes }));
}

function streamQuery(route: RestRoute) {
  const stream = route.stream!;
  return [
    {
      name: stream.followParam,
      in: 'query',
      required: false,
      description: 'Follow this run instead of starting one.',
      schema: { type: 'string', format: 'uuid' },
    },
    {
      name: stream.lastEventParam,
      in: 'query',
      required: false,
      description: 'Resume after this event id (instead of the Last-Event-ID header).',
      schema: { type: 'integer', minimum: 0 },
    },
    {
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: 'Resume after this event id (sent by EventSource on reconnect).',
      schema: { type: 'integer', minimum: 0 },
    },
  ];
}

function tagOf(route: RestRoute): string {
  const segment = route.path.split('/').filter(Boolean)[route.path.startsWith('/api/') ? 1 : 0] ?? 'service';
  return segment.replace(/-/g, ' ');
}

function firstSentence(text: string): string {
  const sentence = text.split(/(?<=[.:;])\s/)[0] ?? text;
  return sentence.replace(/[.:;]$/, '');
}

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The `ETag` of an answer the client holds: 304 with no body while it is current (RFC 9110 13.1.2).',
  schema: { type: 'string' },
};

/**
 * A GET's 200 carries its entity tag and caching rule, and a request holding the current tag gets
 * 304 (rest-compat/conditional.ts, docs/caching.md); a cached read's 304 is decided before its
 * operation runs.
 */
function conditionalResponses(out: Record<string, unknown>, root: RootField): void {
  const tagged = { ETag: { $ref: '#/components/headers/ETag' }, 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } };
  const success = out['200'] as { headers?: Record<string, unknown> };
  success.headers = { ...success.headers, ...tagged };
  const cachedRead = (root.field.extensions as { cachedRead?: unknown }).cachedRead === true;
  out['304'] = {
    description: cachedRead
      ? 'Not modified: the `If-None-Match` request header holds the current tag (the data versions the answer depends on are unchanged); decided without running the read; no body.'
      : 'Not modified: the `If-None-Match` request header holds the tag of the body this request would get; no body.',
    headers: tagged,
  };
}

const RATE_LIMIT_HEADERS = {
  ETag: {
    description: 'RFC 9110: a strong entity tag of the answer. Send it back in `If-None-Match` to get 304 while it is current (docs/caching.md).',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description:
      '`private, no-cache`: a browser may keep the answer but must ask again (with `If-None-Match`) before using it; a shared cache must not keep it.',
    schema: { type: 'string', const: 'private, no-cache' },
  },
  RateLimit: { description: 'IETF draft: the budget left, e.g. `"returns";r=42;t=17`.', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF draft: the budget, e.g. `"returns";q=100;w=60`.', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds until the budget allows another request.', schema: { type: 'integer', minimum: 0 } },
};

function fragmentsOf(document: DocumentNode): Fragments {
  return new Map(
    document.definitions.flatMap((definition) => (definition.kind === 'FragmentDefinition' ? [[definition.name.value, definition] as const] : [])),
  );
}

/** One line per tag (a route's first path segment after /api). */
const TAG_DESCRIPTIONS: Record<string, string> = {
  health: 'Liveness, and with `detailed=true` the state of the database, storage and job queue.',
  status: 'The service: version, uptime and environment.',
  returns: 'Investment returns: custodian vs computed comparison, daily Modified Dietz returns, cash transactions.',
  storage: 'File upload and listing per organization.',
  benchmark: 'The query benchmark.',
  'test scheduler': 'The scheduled self-test runner.',
  stickies: 'Stickies (notes) with tags, trash and version history.',
  links: 'Links and folders.',
  transcripts: 'Meeting transcripts.',
  chat: 'Chat with the workspace assistant.',
  tasks: 'Tasks and comments.',
  news: 'News articles and the weekly digest.',
  generate: 'Multi-agent summary generation with progress as server-sent events.',
  usage: 'Per-client usage, and who still calls each deprecated field, route and tool.',
  webhooks: 'Webhook endpoints (signed outbound events): their secrets, test events, deliveries and redelivery; the events themselves are under `webhooks`.',
  'JSON-RPC': 'The JSON-RPC 2.0 tool endpoint (an MCP server).',
  probes: 'Liveness and readiness probes for orchestrators and load balancers (`/livez`, `/readyz`).',
};

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The schema of one fixed JSON value (every key required, strings as their type). */
function literalSchema(value: unknown): JsonSchema {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array' };
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return {
      type: 'object',
      properties: Object.fromEntries(entries.map(([key, inner]) => [key, literalSchema(inner)])),
      required: entries.map(([key]) => key),
      additionalProperties: false,
    };
  }
  return { type: typeof value === 'number' ? 'number' : typeof value };
}
