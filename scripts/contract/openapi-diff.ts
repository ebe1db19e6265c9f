/**
 * The REST front of contract:check: the baseline's OpenAPI 3.1 document against the one the route
 * table generates. Why our own differ rather than a package: json-schema-diff.ts.
 *
 * Breaking: a route (path and method) removed, a response status removed, a response media type or
 * header removed, a parameter removed, made required or added as required, a request body made
 * required or removed, a request media type removed, and what json-schema-diff.ts calls breaking in
 * a parameter (input), a request body (input) or a response body (output). Additions are info.
 * Security requirements, descriptions and examples are not compared.
 */
import { breaking, change, info, type ContractChange } from './changes.ts';
import { diffSchemas, localRefResolver, type Direction, type Resolver } from './json-schema-diff.ts';

type Node = { [key: string]: unknown };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Side {
  document: Node;
  resolve: Resolver;
}

export function diffOpenApi(beforeDocument: unknown, afterDocument: unknown): ContractChange[] {
  const before: Side = { document: asNode(beforeDocument), resolve: localRefResolver(beforeDocument) };
  const after: Side = { document: asNode(afterDocument), resolve: localRefResolver(afterDocument) };
  const changes: ContractChange[] = [];
  const wasPaths = asNode(before.document.paths);
  const nowPaths = asNode(after.document.paths);
  for (const [path, wasItem] of Object.entries(wasPaths)) {
    for (const method of METHODS) {
      const wasOperation = asNode(before.resolve(wasItem))[method];
      if (wasOperation === undefined) continue;
      const route = `${method.toUpperCase()} ${path}`;
      const nowItem = nowPaths[path];
      const nowOperation = nowItem === undefined ? undefined : asNode(after.resolve(nowItem))[method];
      if (nowOperation === undefined) {
        changes.push(breaking('rest', `${route}: route removed`));
        continue;
      }
      changes.push(...diffOperation(route, { item: wasItem, operation: wasOperation }, { item: nowItem, operation: nowOperation }, before, after));
    }
  }
  for (const [path, nowItem] of Object.entries(nowPaths)) {
    for (const method of METHODS) {
      if (asNode(after.resolve(nowItem))[method] === undefined) continue;
      const wasItem = wasPaths[path];
      if (wasItem === undefined || asNode(before.resolve(wasItem))[method] === undefined)
        changes.push(info('rest', `${method.toUpperCase()} ${path}: route added`));
    }
  }
  return changes;
}

/** One route present in both documents: its parameters, request body and responses. */
function diffOperation(
  route: string,
  was: { item: unknown; operation: unknown },
  now: { item: unknown; operation: unknown },
  before: Side,
  after: Side,
): ContractChange[] {
  const [wasItem, wasOperation] = [asNode(before.resolve(was.item)), asNode(before.resolve(was.operation))];
  const [nowItem, nowOperation] = [asNode(after.resolve(now.item)), asNode(after.resolve(now.operation))];
  return [
    ...diffParameters(route, parametersOf(wasItem, wasOperation, before), parametersOf(nowItem, nowOperation, after), before, after),
    ...diffRequestBody(route, wasOperation.requestBody, nowOperation.requestBody, before, after),
    ...diffResponses(route, asNode(wasOperation.responses), asNode(nowOperation.responses), before, after),
  ];
}

function asNode(value: unknown): Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Node) : {};
}

/** The path item's parameters overridden by the operation's, by location and name (header names are case-insensitive). */
function parametersOf(item: Node, operation: Node, side: Side): Map<string, Node> {
  const parameters = new Map<string, Node>();
  for (const list of [item.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const parameter = asNode(side.resolve(entry));
      const location = String(parameter.in);
      const name = location === 'header' ? String(parameter.name).toLowerCase() : String(parameter.name);
      parameters.set(`${location} parameter ${name}`, parameter);
    }
  }
  return parameters;
}

function diffParameters(route: string, was: Map<string, Node>, now: Map<string, Node>, before: Side, after: Side): ContractChange[] {
  const changes: ContractChange[] = [];
  for (const [key, parameter] of was) {
    const current = now.get(key);
    if (current === undefined) {
      changes.push(breaking('rest', `${route}: ${key} removed`));
      continue;
    }
    const [wasRequired, nowRequired] = [parameter.required === true, current.required === true];
    if (!wasRequired && nowRequired) changes.push(breaking('rest', `${route}: ${key} made required`));
    else if (wasRequired && !nowRequired) changes.push(info('rest', `${route}: ${key} made optional`));
    changes.push(...schemaChanges(`${route}: ${key}`, parameter.schema, current.schema, 'input', before, after));
  }
  for (const [key, parameter] of now) {
    if (was.has(key)) continue;
    if (parameter.required === true) changes.push(breaking('rest', `${route}: ${key} added as required`));
    else changes.push(info('rest', `${route}: ${key} added (optional)`));
  }
  return changes;
}

function diffRequestBody(route: string, wasBody: unknown, nowBody: unknown, before: Side, after: Side): ContractChange[] {
  const was = wasBody === undefined ? undefined : asNode(before.resolve(wasBody));
  const now = nowBody === undefined ? undefined : asNode(after.resolve(nowBody));
  if (was === undefined && now === undefined) return [];
  if (was === undefined) {
    return [now!.required === true ? breaking('rest', `${route}: request body added as required`) : info('rest', `${route}: request body added (optional)`)];
  }
  if (now === undefined) return [breaking('rest', `${route}: request body removed`)];
  const changes: ContractChange[] = [];
  if (was.required !== true && now.required === true) changes.push(breaking('rest', `${route}: request body made required`));
  const wasContent = asNode(was.content);
  const nowContent = asNode(now.content);
  for (const [mediaType, media] of Object.entries(wasContent)) {
    if (!(mediaType in nowContent)) {
      changes.push(breaking('rest', `${route}: request body no longer accepts ${mediaType}`));
      continue;
    }
    changes.push(...schemaChanges(`${route}: request body (${mediaType})`, asNode(media).schema, asNode(nowContent[mediaType]).schema, 'input', before, after));
  }
  for (const mediaType of Object.keys(nowContent)) {
    if (!(mediaType in wasContent)) changes.push(info('rest', `${route}: request body accepts ${mediaType}`));
  }
  return changes;
}

function diffResponses(route: string, was: Node, now: Node, before: Side, after: Side): ContractChange[] {
  const changes: ContractChange[] = [];
  for (const [status, wasResponse] of Object.entries(was)) {
    if (!(status in now)) {
      changes.push(breaking('rest', `${route}: response ${status} removed`));
      continue;
    }
    const response = asNode(before.resolve(wasResponse));
    const current = asNode(after.resolve(now[status]));
    const at = `${route}: response ${status}`;
    changes.push(...diffNamed(`${at} header`, lowerCaseKeys(asNode(response.headers)), lowerCaseKeys(asNode(current.headers))));
    const wasContent = asNode(response.content);
    const nowContent = asNode(current.content);
    for (const [mediaType, media] of Object.entries(wasContent)) {
      if (!(mediaType in nowContent)) {
        changes.push(breaking('rest', `${at} no longer ${mediaType}`));
        continue;
      }
      changes.push(...schemaChanges(`${at} (${mediaType})`, asNode(media).schema, asNode(nowContent[mediaType]).schema, 'output', before, after));
    }
    for (const mediaType of Object.keys(nowContent)) {
      if (!(mediaType in wasContent)) changes.push(info('rest', `${at} may be ${mediaType}`));
    }
  }
  for (const status of Object.keys(now)) {
    if (!(status in was)) changes.push(info('rest', `${route}: response ${status} added`));
  }
  return changes;
}

/** Response headers: one removed breaks a client that reads it. */
function diffNamed(at: string, was: Node, now: Node): ContractChange[] {
  return [
    ...Object.keys(was)
      .filter((name) => !(name in now))
      .map((name) => breaking('rest', `${at} ${name} removed`)),
    ...Object.keys(now)
      .filter((name) => !(name in was))
      .map((name) => info('rest', `${at} ${name} added`)),
  ];
}

function lowerCaseKeys(node: Node): Node {
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key.toLowerCase(), value]));
}

function schemaChanges(at: string, was: unknown, now: unknown, direction: Direction, before: Side, after: Side): ContractChange[] {
  if (was === undefined && now === undefined) return [];
  return diffSchemas(was ?? {}, now ?? {}, direction, { resolveBefore: before.resolve, resolveAfter: after.resolve }).map(({ level, path, what }) =>
    change('rest', level, `${at}${path === '' ? '' : ` property ${path}`}: ${what}`),
  );
}
