/**
 * The events of the web pages that do not run through the operation pipeline (sign-in, sign-out,
 * OAuth consent), recorded where they happen. Each names its operation (`sign-in`, `oauth.consent`).
 */
import type { RequestContext } from '../context.ts';
import { requestFields } from './request-fields.ts';
import type { AuditEventInput } from './types.ts';

/** An event of a web page (sign-in, sign-out, OAuth consent): front `web`, the request's address and ids. */
export function webEvent(ctx: RequestContext, event: Omit<AuditEventInput, 'front'>): AuditEventInput {
  const fromRequest = requestFields(ctx);
  return {
    ...fromRequest,
    ...event,
    front: 'web',
    // The page's own account of who acted wins over the request's credential (a sign-in has none yet).
    actorId: event.actorId ?? fromRequest.actorId,
    credential: event.credential ?? fromRequest.credential,
  };
}
