/**
 * Each client's share of the service's attention: at most `inFlightPerClient` of a client's
 * requests are served at once, its further requests wait in its own queue (first come, first
 * served), and past `queuedPerClient` waiting ones it is refused. The HTTP policy that applies it
 * to every request is server/http/client-queue.ts; this is the bookkeeping, knowing nothing of HTTP.
 */
export interface ClientQueueLimits {
  inFlightPerClient: number;
  queuedPerClient: number;
}

/** Seconds a client refused for a full queue is told to wait: its queue drains in about that. */
export const QUEUE_RETRY_AFTER_SECONDS = 1;

interface ClientState {
  inFlight: number;
  waiting: (() => void)[];
}

export class ClientQueues {
  private readonly clients = new Map<string, ClientState>();

  constructor(readonly limits: ClientQueueLimits) {}

  /**
   * Runs `start` now or when the client's turn comes, and returns true; returns false (nothing
   * runs) when the client's queue is full. `start` receives the function that gives the place back.
   */
  admit(client: string, start: (done: () => void) => void): boolean {
    const state = this.clients.get(client) ?? { inFlight: 0, waiting: [] };
    this.clients.set(client, state);
    const run = () => {
      state.inFlight++;
      start(this.placeGivenBack(client, state));
    };
    if (state.inFlight < this.limits.inFlightPerClient) {
      run();
      return true;
    }
    if (state.waiting.length >= this.limits.queuedPerClient) return false;
    state.waiting.push(run);
    return true;
  }

  /**
   * The function that gives a served request's place back (once). Made apart from `admit`, so it
   * holds the client and its state only, not the request's `start`: a request that gives its
   * place back when its response starts (an event stream) keeps this function until it closes,
   * and with `start` it would keep everything the request's start held.
   */
  private placeGivenBack(client: string, state: ClientState): () => void {
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      state.inFlight--;
      this.next(client, state);
    };
  }

  /** Requests served and waiting, over all clients (for tests and metrics). */
  get size(): { inFlight: number; waiting: number } {
    let inFlight = 0;
    let waiting = 0;
    for (const state of this.clients.values()) {
      inFlight += state.inFlight;
      waiting += state.waiting.length;
    }
    return { inFlight, waiting };
  }

  /**
   * The client's next waiting request starts in a task of its own (setImmediate), not inside the
   * answer of the one before: a client whose refusals are answered synchronously would otherwise
   * drain its whole queue in one turn of the event loop while every other client waits.
   */
  private next(client: string, state: ClientState): void {
    const waiting = state.waiting.shift();
    if (waiting) {
      state.inFlight++; // the place is taken now, so no newcomer overtakes the queue meanwhile
      setImmediate(() => {
        state.inFlight--;
        waiting();
      });
    } else if (state.inFlight === 0) this.clients.delete(client);
  }
}
