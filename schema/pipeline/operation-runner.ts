/**
 * The one place operations run. Every front reaches the schema through the same envelop pipeline:
 * /graphql through graphql-yoga, and REST routes, MCP tools, GraphQL multipart uploads and the
 * REST event stream through `yoga.getEnveloped` (the way yoga's own sofa plugin does), so a plugin
 * added to the pipeline (masking, limits, input guards, metrics, tracing) holds on every front.
 */
import { getOperationAST, parse, type DocumentNode, type GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type GetEnvelopedFn } from '@envelop/core';
import { SourceEventsRoot } from './use-shared-execution.ts';
import { pushSourceOf, type MaybePushable } from '../../src/util/async-iterator.ts';
import { getSchema } from '../index.ts';
import type { RequestContext } from '../../src/context.ts';

/** An operation parsed and validated once, through the pipeline's validation rules. */
export interface PreparedOperation {
  source: string;
  document: DocumentNode;
}

export interface OperationRunner {
  /** Parses and validates a fixed document (a route's or a tool's) once; throws if it is invalid. */
  prepare(source: string): PreparedOperation;
  /** Parses and validates a client's document (no caching); validation errors come back as a result. */
  parseClientDocument(source: string): { document: DocumentNode } | { errors: ExecutionResult['errors'] };
  /** Runs a query or mutation with the request's context. */
  execute(
    ctx: RequestContext,
    operation: PreparedOperation | DocumentNode,
    variables: Record<string, unknown>,
    operationName?: string,
  ): Promise<ExecutionResult>;
  /**
   * Starts a subscription and returns its source stream (the subscribe resolver runs: authorization,
   * argument checks) for a front that renders the service's events itself, once for all its
   * followers (the REST event stream). A refusal comes back as a result with the masked errors.
   */
  sourceEvents(ctx: RequestContext, operation: PreparedOperation, variables: Record<string, unknown>): Promise<MaybePushable<unknown> | ExecutionResult>;
}

export function createOperationRunner(getEnveloped: GetEnvelopedFn<object>): OperationRunner {
  const prepared = new Map<string, PreparedOperation>();
  const schema = getSchema();
  const pipeline = () => getEnveloped({});

  const checked = (document: DocumentNode): readonly GraphQLError[] => pipeline().validate(schema, document);

  return {
    prepare(source) {
      let operation = prepared.get(source);
      if (!operation) {
        const document = parse(source);
        const errors = checked(document);
        if (errors.length > 0) throw new AggregateError(errors, `Invalid operation: ${errors.map((e) => e.message).join('; ')}`);
        operation = { source, document };
        prepared.set(source, operation);
      }
      return operation;
    },

    parseClientDocument(source) {
      let document: DocumentNode;
      try {
        document = parse(source);
      } catch (error) {
        return { errors: [error as never] };
      }
      const errors = checked(document);
      return errors.length > 0 ? { errors } : { document };
    },

    async execute(ctx, operation, variables, operationName) {
      const document = 'kind' in operation ? operation : operation.document;
      const args: ExecutionArgs = { schema, document, variableValues: variables, operationName, contextValue: ctx };
      const result = await pipeline().execute(args);
      if (isAsyncIterable(result)) throw new Error(`${getOperationAST(document, operationName)?.operation ?? 'operation'} streams: use sourceEvents`);
      return result as ExecutionResult;
    },

    async sourceEvents(ctx, operation, variables) {
      const root = new SourceEventsRoot();
      const args: ExecutionArgs = { schema, document: operation.document, variableValues: variables, contextValue: ctx, rootValue: root };
      const result = await pipeline().subscribe(args);
      if (!isAsyncIterable(result)) return result as ExecutionResult;
      // A source with a push side is read through it, past the plugins' wrappers (they see a
      // value or an error only through next()), and their return() only passes the call on: the
      // front gets the source itself, so the wrappers, with the operation's arguments and context
      // and the plugins' hooks they hold, are let go once the subscription has started. A source
      // without one is read through the wrappers, which then see its errors.
      if (pushSourceOf(root.source)) return root.source as MaybePushable<unknown>;
      return result as AsyncIterableIterator<unknown>;
    },
  };
}
