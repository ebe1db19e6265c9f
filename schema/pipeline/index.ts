/**
 * The operation pipeline: the envelop plugins every operation passes through, whatever front it
 * came in by. /graphql (graphql-yoga) is built with them; the other fronts run operations through
 * yoga's own getEnveloped (operation-runner.ts), so each policy is attached here, once.
 */
import * as graphql from 'graphql';
import { envelop, useEngine, useSchema, type Plugin } from '@envelop/core';
import { getSchema } from '../index.ts';
import { useDepthLimit } from './use-depth-limit.ts';
import { useErrorMasking } from './use-error-masking.ts';
import { useInputGuards } from './use-input-guards.ts';
import { useMetrics } from './use-metrics.ts';
import { useAudit } from './use-audit.ts';
import { useUsage } from './use-usage.ts';
import { useResponseCache } from './use-response-cache.ts';
import { useTracing } from './use-tracing.ts';
import { useSharedExecution, useSourceEvents } from './use-shared-execution.ts';
import { createOperationRunner, type OperationRunner } from './operation-runner.ts';

export interface PipelineOptions {
  /** GRAPHQL_MAX_DEPTH. */
  maxDepth: number;
  /** GRAPHQL_INTROSPECTION (default true). */
  introspection?: boolean;
}

/** The plugins, in order: subscription events executed once per group of followers, the operation's span, validation rules, then refusals before execution, then masking of what comes out, then the operation's metrics, audit events and per-client usage (which see the masked codes); last, cached answers and conditional requests: a cached answer stops the execution hooks of the plugins after it, so every other one has seen the operation by then. */
export function operationPlugins(options: PipelineOptions): Plugin[] {
  return [
    // Sets the engine's subscribe function, so it comes before the plugins that wrap it.
    useSharedExecution(),
    useTracing(),
    useDepthLimit(options.maxDepth, { introspection: options.introspection }),
    useInputGuards(),
    useSourceEvents(),
    useErrorMasking() as Plugin,
    useMetrics() as Plugin,
    useAudit() as Plugin,
    useUsage() as Plugin,
    useResponseCache() as Plugin,
  ];
}

/**
 * A runner over the same plugins without an HTTP server (tests, scripts). The service itself runs
 * operations through yoga's getEnveloped (server/http/graphql.ts), which adds yoga's own engine.
 */
export function standaloneRunner(options: PipelineOptions): OperationRunner {
  return createOperationRunner(envelop({ plugins: [useEngine(graphql), useSchema(getSchema()), ...operationPlugins(options)] }));
}

export { createOperationRunner, type OperationRunner, type PreparedOperation } from './operation-runner.ts';
