/**
 * GET /api/audit-events/export: the audit events a caller may read (the same audience and filters
 * as GET /api/audit-events), as NDJSON for a SIEM: one event a line, newest first, streamed a
 * page at a time with the socket's back-pressure respected, so an export of any size holds one
 * page in memory. Served here and not by the route table, whose routes answer one JSON body.
 */
import { once } from 'node:events';
import express, { type Request, type Response, type Router } from 'express';
import type { Services } from '../../src/services.ts';
import { AppError } from '../../src/errors.ts';
import { refusalFor } from '../../src/refusal.ts';
import { auditEventJson, type AuditFilters } from '../../src/audit/queries.ts';
import { recordRefusal } from '../../src/audit/refusals.ts';
import { auditAudience } from '../../schema/audit.ts';
import { sendError } from '../../rest-compat/errors.ts';
import { contextFor, requestLog } from './request-context.ts';

export const AUDIT_EXPORT_PATH = '/api/audit-events/export';

export function auditExportRoutes(services: Services): Router {
  const router = express.Router();
  router.get(AUDIT_EXPORT_PATH, (req: Request, res: Response) => {
    void exportEvents(services, req, res).catch((error: unknown) => {
      if (res.headersSent) {
        requestLog(req).warn({ err: error }, 'audit export ended early');
        res.destroy();
        return;
      }
      sendError(res, refusalFor(error, { log: requestLog(req), databaseOutage: services.databaseOutage }));
    });
  });
  return router;
}

async function exportEvents(services: Services, req: Request, res: Response): Promise<void> {
  const ctx = await contextFor(services, req, undefined, 'rest');
  const audience = await auditAudience(ctx).catch((error: unknown) => {
    recordRefusal(ctx, `GET ${AUDIT_EXPORT_PATH}`, error);
    throw error;
  });
  const filters = exportFilters(req.query as Record<string, unknown>);
  const events = services.auditEvents.all(audience, filters);
  // The first page is read before the headers: a bad filter is still a 400.
  const first = await events.next();
  res.writeHead(200, { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' });
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  for (let next = first; !next.done && !closed; next = await events.next()) {
    if (!res.write(`${JSON.stringify(auditEventJson(next.value))}\n`)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  }
  await events.return(undefined);
  res.end();
}

function exportFilters(query: Record<string, unknown>): AuditFilters {
  const text = (name: string): string | null => {
    const value = query[name];
    if (value === undefined) return null;
    if (typeof value !== 'string') throw AppError.badInput(name, 'must be given once');
    return value;
  };
  const instant = (name: string): Date | null => {
    const value = text(name);
    if (value === null) return null;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) throw AppError.badInput(name, 'must be an ISO 8601 date-time');
    return date;
  };
  return {
    actor: text('actor'),
    credential: text('credential'),
    front: text('front'),
    operation: text('operation'),
    outcome: text('outcome'),
    since: instant('since'),
    until: instant('until'),
  };
}
