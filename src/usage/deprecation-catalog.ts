/**
 * Everything deprecated, and how its calls are found in the DeprecatedCall table: a field by its
 * coordinate on any front; a route deprecated on its row by its own records (the router writes
 * them, rest-compat/deprecation.ts); a route or tool deprecated through a field by that field's
 * records made through its front by its operation. GET /api/usage/deprecated lists each with the
 * credentials that called it in the last 30 days.
 */
import { parse, getOperationAST, type GraphQLSchema } from 'graphql';
import { deprecatedFields, deprecatedFieldsIn, operationDeprecation, type Deprecation } from './deprecation.ts';
import type { DeprecatedCaller } from './usage-store.ts';

type SubjectKind = 'field' | 'route' | 'tool';

/** Which recorded calls are calls of a deprecated thing. */
interface CallMatch {
  subjectKind: 'field' | 'route';
  subject: string;
  front?: string;
  operation?: string;
}

export interface DeprecatedSubject {
  kind: SubjectKind;
  /** `Type.field`, `GET /path`, or the tool's name. */
  name: string;
  deprecation: Deprecation;
  matches: CallMatch[];
}

/** What the catalog reads of a REST route row and of an MCP tool row. */
export interface RouteFacts {
  method: string;
  path: string;
  operation: string;
  deprecated?: Deprecation;
}
export interface ToolFacts {
  name: string;
  operation: string;
}

export function routeName(route: Pick<RouteFacts, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

export function deprecationCatalog(schema: GraphQLSchema, routes: readonly RouteFacts[], tools: readonly ToolFacts[]): DeprecatedSubject[] {
  const subjects = deprecatedFields(schema).map(
    ({ coordinate, ...deprecation }): DeprecatedSubject => ({
      kind: 'field',
      name: coordinate,
      deprecation,
      matches: [{ subjectKind: 'field', subject: coordinate }],
    }),
  );
  for (const route of routes) {
    const subject = derived(schema, 'route', routeName(route), route.operation, 'rest', route.deprecated);
    if (subject) subjects.push(route.deprecated ? { ...subject, matches: [{ subjectKind: 'route', subject: routeName(route) }] } : subject);
  }
  for (const tool of tools) {
    const subject = derived(schema, 'tool', tool.name, tool.operation, 'mcp');
    if (subject) subjects.push(subject);
  }
  return subjects;
}

/** A route or tool, deprecated on its own or through the fields its operation selects. */
function derived(schema: GraphQLSchema, kind: SubjectKind, name: string, source: string, front: string, own?: Deprecation): DeprecatedSubject | undefined {
  const document = parse(source);
  const fields = deprecatedFieldsIn(schema, document);
  const deprecation = operationDeprecation(own, fields);
  if (!deprecation) return undefined;
  const operation = getOperationAST(document)?.name?.value ?? 'anonymous';
  return { kind, name, deprecation, matches: fields.map((field): CallMatch => ({ subjectKind: 'field', subject: field.coordinate, front, operation })) };
}

export interface DeprecatedSubjectCallers extends DeprecatedSubject {
  callers: CredentialCalls[];
}

/** One credential's calls of a deprecated thing: how many, the last one, through which fronts. */
export interface CredentialCalls {
  credentialKind: string;
  credentialId: string;
  credentialName: string | null;
  credentialPrefix: string | null;
  userId: string;
  calls: number;
  lastCalledAt: Date;
  fronts: string[];
}

/** Each subject with the credentials among `calls` that called it, most recent first. */
export function callersBySubject(subjects: readonly DeprecatedSubject[], calls: readonly DeprecatedCaller[]): DeprecatedSubjectCallers[] {
  return subjects.map((subject) => {
    const byCredential = new Map<string, CredentialCalls>();
    for (const call of calls.filter((row) => subject.matches.some((match) => matches(match, row)))) {
      const key = `${call.credentialKind}:${call.credentialId}`;
      const seen = byCredential.get(key);
      if (!seen) {
        byCredential.set(key, { ...pickCredential(call), calls: call.calls, lastCalledAt: call.lastCalledAt, fronts: [call.front] });
        continue;
      }
      seen.calls += call.calls;
      if (call.lastCalledAt > seen.lastCalledAt) seen.lastCalledAt = call.lastCalledAt;
      if (!seen.fronts.includes(call.front)) seen.fronts.push(call.front);
    }
    const callers = [...byCredential.values()].sort((a, b) => b.lastCalledAt.getTime() - a.lastCalledAt.getTime());
    return { ...subject, callers };
  });
}

function matches(match: CallMatch, row: DeprecatedCaller): boolean {
  return (
    match.subjectKind === row.subjectKind &&
    match.subject === row.subject &&
    (match.front === undefined || match.front === row.front) &&
    (match.operation === undefined || match.operation === row.operation)
  );
}

function pickCredential(call: DeprecatedCaller): Pick<CredentialCalls, 'credentialKind' | 'credentialId' | 'credentialName' | 'credentialPrefix' | 'userId'> {
  return {
    credentialKind: call.credentialKind,
    credentialId: call.credentialId,
    credentialName: call.credentialName,
    credentialPrefix: call.credentialPrefix,
    userId: call.userId,
  };
}
