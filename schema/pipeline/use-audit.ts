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

/** The events of one executed operation: one per root field of a mutation; one per refused operation otherwise. */
function operationEvents(
  ctx: RequestContext,
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  result: ExecutionResult,
  isMutation: boolean,
): AuditEventInput[] {
  const fields = rootFields(operation);
  const refusal = result.errors?.find((error) => REFUSALS.has(codeOf(error) ?? ''));
  if (!isMutation && !refusal) return [];
  const base = {
    ...requestFields(ctx),
    variables: redactVariables(variables),
    orgHint: orgHintOf(variables),
  };
  const label = operationLabel(ctx.services.audit.labels, ctx.front, operation.name?.value);
  if (!isMutation) {
    const field = fields.find((node) => responseKey(node) === refusal?.path?.[0]) ?? fields[0];
    return [{ ...base, operation: label(field?.name.value), outcome: codeOf(refusal!) ?? 'UNKNOWN' }];
  }
  return fields.map((field) => ({
    ...base,
    operation: label(field.name.value),
    outcome: outcomeOf(field, result.errors),
    target: targetOf(schema, field, variables, result.data?.[responseKey(field)]),
  }));
}

function rootFields(operation: OperationDefinitionNode): FieldNode[] {
  return operation.selectionSet.selections.filter(
    (selection): selection is FieldNode => selection.kind === Kind.FIELD && selection.name.value !== '__typename',
  );
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
  const definition = schema.getMutationType()?.getFields()[field.name.value];
  const named = definition ? getNamedType(definition.type) : undefined;
  const type = named && isObjectType(named) ? named.name : undefined;
  const fromResult = data !== null && typeof data === 'object' ? (data as Record<string, unknown>).id : undefined;
  const id = typeof fromResult === 'string' ? fromResult : argumentId(field, variables);
  return id ? { type: type ?? field.name.value, id } : null;
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

/** How each front names an operation: REST by its route template, MCP by its tool, GraphQL by operation and field. */
function operationLabel(labels: OperationLabels, front: RequestContext['front'], operationName: string | undefined): (field: string | undefined) => string {
  const fixed =
    operationName === undefined ? undefined : front === 'rest' ? labels.rest.get(operationName) : front === 'mcp' ? labels.mcp.get(operationName) : undefined;
  return (field) => fixed ?? `${operationName ?? 'anonymous'}.${field ?? ''}`;
}
