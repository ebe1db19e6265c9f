/**
 * Refusals decided outside the operation pipeline (a REST route's preflight check before its body
 * is read, the NDJSON export, the MCP endpoint's bearer check): recorded like the pipeline records a refused operation.
 */
import type { RequestContext } from '../context.ts';
import { requestFields } from './request-fields.ts';

/** Records `error` when it is a 401 or 403 refusal of `operation` (a REST route template). */
export function recordRefusal(ctx: RequestContext, operation: string, error: unknown): void {
  const code = (error as { extensions?: { code?: unknown } } | null)?.extensions?.code;
  if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN') recordRefusalCode(ctx, operation, code);
}

/** Records a refusal the caller answers itself (the MCP endpoint's 401 before any tool runs). */
export function recordRefusalCode(ctx: RequestContext, operation: string, code: 'UNAUTHENTICATED' | 'FORBIDDEN'): void {
  ctx.services.audit.record({ ...requestFields(ctx), operation, outcome: code });
}
