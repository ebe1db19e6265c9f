/**
 * The audit log's hook on the pipeline, once for every front (docs/audit.md): every mutation's
 * outcome (ok, or its error code), one event per root field, and every operation refused with
 * UNAUTHENTICATED or FORBIDDEN (a query too). The front, actor and credential come from the
 * request context; the operation is named the way its front names it: the REST route template
 * (`POST /api/stickies`), the MCP tool (`tool create_sticky`), or the GraphQL operation and field
 * (`CreateSticky.createSticky`). Listed after the error masking, so it sees the codes clients get.
 *
 * While the recorder's queue is full, a mutation waits before it runs (back-pressure: nothing is
 * dropped). Subscriptions are not recorded (they change nothing); their refusals are, when the
 * subscribe resolver refuses.
 */
import {
  getNamedType,
  getOperationAST,
  isObjectType,
  Kind,
  valueFromASTUntyped,
  type ExecutionResult,
  type FieldNode,
  type GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { isAsyncIterable, type Plugin } from '@envelop/core';
import type { RequestContext } from '../../src/context.ts';
import { redactVariables } from '../../src/audit/redaction.ts';
import { requestFields } from '../../src/audit/request-fields.ts';
import type { AuditEventInput } from '../../src/audit/types.ts';
import type { OperationLabels } from '../../src/audit/operation-labels.ts';

type AuditContext = Partial<RequestContext>;

/** Codes whose refusal is recorded on any operation, not only on mutations. */
const REFUSALS = new Set(['UNAUTHENTICATED', 'FORBIDDEN']);

export function useAudit(): Plugin<AuditContext> {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue;
      const recorder = ctx.services?.audit;
      const operation = getOperationAST(args.document, args.operationName);
      if (!recorder || !operation || !isRequestContext(ctx)) return;
      const isMutation = operation.operation === 'mutation';
      const done = {
        onExecuteDone({ result }: { result: ExecutionResult | AsyncIterable<unknown> }) {
          if (isAsyncIterable(result)) return;
          for (const event of operationEvents(ctx, args.schema, operation, args.variableValues ?? {}, result, isMutation)) recorder.record(event);
        },
      };
      const room = isMutation ? recorder.whenRoom() : undefined;
      return room ? room.then(() => done) : done;
    },
    onSubscribe({ args }) {
      const ctx = args.contextValue;
      const recorder = ctx.services?.audit;
      const operation = getOperationAST(args.document, args.operationName);
      if (!recorder || !operation || !isRequestContext(ctx)) return;
      return {
        onSubscribeResult({ result }) {
          if (isAsyncIterable(result)) return;
          for (const event of operationEvents(ctx, args.schema, operation, args.variableValues ?? {}, result as ExecutionResult, false)) recorder.record(event);
        },
      };
    },
  };
}

function isRequestContext(ctx: AuditContext): ctx is RequestContext {
  return ctx.front !== undefined && ctx.viewer !== undefined && ctx.requestId !== undefined;
}

/**
 * The events of one executed operation: one per root field of a mutation; one per refused operation
 * otherwise. What the request, the variables and the operation's name give is worked out once per
 * operation, and each event is one object literal of a fixed shape (spreading a shared base into
 * each event cost more than the rest of the hook: profiled). No function is made per operation on
 * the way: each costs a property definition as well (tsx keeps function names; profiled).
 */
function operationEvents(
  ctx: RequestContext,
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  result: ExecutionResult,
  isMutation: boolean,
): AuditEventInput[] {
  const refusal = isMutation ? undefined : result.errors?.find((error) => REFUSALS.has(codeOf(error) ?? ''));
  if (!isMutation && !refusal) return [];
  const fields = rootFields(operation);
  const shared: SharedFields = {
    request: requestFields(ctx),
    variables: redactVariables(variables),
    orgHint: orgHintOf(variables),
    operationName: operation.name?.value,
    label: operationLabel(ctx.services.audit.labels, ctx.front, operation.name?.value),
  };
  if (!isMutation) {
    const field = fields.find((node) => responseKey(node) === refusal?.path?.[0]) ?? fields[0];
    return [auditEvent(shared, field?.name.value, codeOf(refusal!) ?? 'UNKNOWN', undefined)];
  }
  const events = new Array<AuditEventInput>(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    events[i] = auditEvent(shared, field.name.value, outcomeOf(field, result.errors), targetOf(schema, field, variables, result.data?.[responseKey(field)]));
  }
  return events;
}

/** What every event of one operation shares. */
interface SharedFields {
  request: ReturnType<typeof requestFields>;
  variables: Record<string, unknown> | null;
  orgHint: string | null;
  operationName: string | undefined;
  /** The REST route's or MCP tool's label; undefined on GraphQL, which names the field too. */
  label: string | undefined;
}

function auditEvent(shared: SharedFields, field: string | undefined, outcome: string, target: AuditEventInput['target']): AuditEventInput {
  const { request } = shared;
  return {
    front: request.front,
    actorId: request.actorId,
    credential: request.credential,
    clientAddress: request.clientAddress,
    userAgent: request.userAgent,
    requestId: request.requestId,
    traceId: request.traceId,
    variables: shared.variables,
    orgHint: shared.orgHint,
    operation: shared.label ?? `${shared.operationName ?? 'anonymous'}.${field ?? ''}`,
    outcome,
    target,
  };
}

function rootFields(operation: OperationDefinitionNode): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind === Kind.FIELD && selection.name.value !== '__typename') fields.push(selection);
  }
  return fields;
}

function responseKey(field: FieldNode): string {
  return field.alias?.value ?? field.name.value;
}

/** `ok`, the code of the error at this field (or below it), or of an error of the whole operation. */
function outcomeOf(field: FieldNode, errors: readonly GraphQLError[] | undefined): string {
  if (!errors?.length) return 'ok';
  const own = errors.find((error) => error.path?.[0] === responseKey(field)) ?? errors.find((error) => !error.path?.length);
  return own ? (codeOf(own) ?? 'UNKNOWN') : 'ok';
}

function codeOf(error: GraphQLError): string | undefined {
  const code = error.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What a mutation changed: its result's type and id, or the id its arguments name (`id`, `input.id`). */
function targetOf(schema: GraphQLSchema, field: FieldNode, variables: Record<string, unknown>, data: unknown): AuditEventInput['target'] {
  const type = resultTypeOf(schema, field.name.value);
  const fromResult = data !== null && typeof data === 'object' ? (data as Record<string, unknown>).id : undefined;
  const id = typeof fromResult === 'string' ? fromResult : argumentId(field, variables);
  return id ? { type: type ?? field.name.value, id } : null;
}

/** Each schema's mutation fields' result types (an object type's name, or undefined), looked up once per field. */
const resultTypes = new WeakMap<GraphQLSchema, Map<string, string | undefined>>();

function resultTypeOf(schema: GraphQLSchema, fieldName: string): string | undefined {
  let types = resultTypes.get(schema);
  if (!types) resultTypes.set(schema, (types = new Map()));
  if (types.has(fieldName)) return types.get(fieldName);
  const definition = schema.getMutationType()?.getFields()[fieldName];
  const named = definition ? getNamedType(definition.type) : undefined;
  const type = named && isObjectType(named) ? named.name : undefined;
  // Only the schema's own fields are remembered (a request may name any field; it fails validation first).
  if (definition) types.set(fieldName, type);
  return type;
}

function argumentId(field: FieldNode, variables: Record<string, unknown>): string | undefined {
  const args = Object.fromEntries((field.arguments ?? []).map((arg) => [arg.name.value, valueFromASTUntyped(arg.value, variables) as unknown]));
  const input = args.input;
  const id = args.id ?? (input !== null && typeof input === 'object' ? (input as Record<string, unknown>).id : undefined);
  return typeof id === 'string' ? id : undefined;
}

/** The organization the variables name (an upload's org_id), for the event's organization. */
function orgHintOf(variables: Record<string, unknown>): string | null {
  const input = variables.input;
  const hint = variables.orgId ?? (input !== null && typeof input === 'object' ? (input as Record<string, unknown>).orgId : undefined);
  return typeof hint === 'string' ? hint : null;
}

/**
 * How each front names an operation: REST by its route template, MCP by its tool (the label, the
 * same for each root field), GraphQL by operation and field (undefined here: the caller adds the field).
 */
function operationLabel(labels: OperationLabels, front: RequestContext['front'], operationName: string | undefined): string | undefined {
  if (operationName === undefined) return undefined;
  return front === 'rest' ? labels.rest.get(operationName) : front === 'mcp' ? labels.mcp.get(operationName) : undefined;
}
