/** The shape of a request policy (request-policies.ts), apart so the policies' modules can name it. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the policies read of a request: what express sets, and the REST lane sets too. */
export interface PolicyRequest extends IncomingMessage {
  /** The path without the query string. */
  path: string;
  /** The request line's URL, query string included. */
  originalUrl: string;
  /** Where the router that matched is mounted ('' at the top). */
  baseUrl: string;
  /** The matched route (its template in `path`), once one matched. */
  route?: { path?: unknown };
}

export type RequestPolicy = (req: PolicyRequest, res: ServerResponse, next: () => void) => void;
