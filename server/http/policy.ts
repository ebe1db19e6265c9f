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

/**
 * Calls `before` with writeHead's arguments when the response's head is written, just before it
 * goes out. The wrapper steps aside at its first call (res.writeHead is again what it wrapped):
 * a head is written once, and a response that lives on after it (an event stream, for as long as
 * it follows) then holds neither the wrapper nor what `before` holds only for it.
 */
export function beforeWriteHead(res: ServerResponse, before: (args: unknown[]) => void): void {
  res.writeHead = new HeadHook(res, res.writeHead, before).wrapper;
}

class HeadHook {
  /** Not a named closure: tsx keeps function names, which costs a few hundred bytes per function. */
  readonly wrapper: ServerResponse['writeHead'];

  constructor(
    private readonly res: ServerResponse,
    private readonly inner: ServerResponse['writeHead'],
    private readonly before: (args: unknown[]) => void,
  ) {
    this.wrapper = ((...args: unknown[]) => this.call(args)) as ServerResponse['writeHead'];
  }

  private call(args: unknown[]): ServerResponse {
    // Outermost first: each hook, once called, hands res.writeHead to the one it wrapped.
    if (this.res.writeHead === this.wrapper) this.res.writeHead = this.inner;
    this.before(args);
    return Reflect.apply(this.inner, this.res, args) as ServerResponse;
  }
}
