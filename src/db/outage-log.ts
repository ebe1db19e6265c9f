import type { Logger } from '../log.ts';

/**
 * The log of a database outage: every front answers 503 with Retry-After while the database is
 * unavailable, and the log says so once, when the first request meets it (a warning, with the
 * driver's reason and no stack: the failure is expected, not a bug), then once more when it has
 * been quiet for `quietMs` (how long it lasted and how many requests were refused), instead of a
 * stack trace per request.
 */
export class DatabaseOutageLog {
  private outage: { since: number; last: number; refused: number; timer: NodeJS.Timeout } | null = null;

  constructor(
    private readonly log: Logger,
    private readonly quietMs = 5_000,
  ) {}

  /** A request met the unavailable database. */
  failed(error: unknown): void {
    const now = Date.now();
    if (this.outage) {
      this.outage.last = now;
      this.outage.refused++;
      return;
    }
    this.log.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      'database unavailable: requests are answered 503 with Retry-After until it answers again',
    );
    const timer = setInterval(() => this.endIfQuiet(), this.quietMs);
    timer.unref();
    this.outage = { since: now, last: now, refused: 1, timer };
  }

  private endIfQuiet(): void {
    const outage = this.outage;
    if (!outage || Date.now() - outage.last < this.quietMs) return;
    clearInterval(outage.timer);
    this.outage = null;
    this.log.info({ refused: outage.refused, lastedMs: outage.last - outage.since }, 'database outage over: no request has met it for a while');
  }

  /** Stops the timer (shutdown). */
  close(): void {
    if (this.outage) clearInterval(this.outage.timer);
    this.outage = null;
  }
}
