import type { PGlite } from '@electric-sql/pglite';

interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

/** Extended-protocol messages that leave state in the session until the next Sync. */
const GROUP_MESSAGES = new Set(['P', 'B', 'D', 'E', 'C', 'H']);
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * Serialises the socket connections onto PGlite's single session.
 *
 * pglite-socket's own queue only keeps a connection's messages together inside a transaction.
 * The extended query protocol that `pg` uses for every parameterised query (Parse, Bind,
 * Describe, Execute, then Sync) keeps the unnamed statement and portal in the session, so two
 * connections interleaved between Parse and Sync bind to each other's statements ("portal does
 * not exist", wrong parameter types, or silently wrong rows). This queue gives the session to
 * one connection from its first message of a group until its Sync, and for the whole of a
 * transaction; other connections wait. test/db/embedded-concurrency.test.ts drives it.
 */
export class SessionQueue {
  private readonly queue: QueuedMessage[] = [];
  private processing = false;
  /** The connection that holds the session (mid-group or in a transaction), if any. */
  private owner: number | null = null;

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    for (let index = this.queue.length - 1; index >= 0; index -= 1) {
      if (this.queue[index].handlerId === handlerId) this.queue.splice(index, 1)[0].reject(new Error('Handler disconnected'));
    }
  }

  /** A connection went away while holding the session: end its group and roll back its transaction. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    await this.db.runExclusive(() => this.db.execProtocolRawStream(SYNC, { onRawData: () => {} }));
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.owner = null;
    void this.process();
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const index = this.owner === null ? 0 : this.queue.findIndex((item) => item.handlerId === this.owner);
        if (index === -1) break; // the owner's next message has not arrived yet
        const item = this.queue.splice(index, 1)[0];
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          this.release(item);
          item.reject(error);
          continue;
        }
        this.release(item);
        item.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  }

  private release(item: QueuedMessage): void {
    const type = String.fromCharCode(item.message[0] ?? 0);
    const holds = this.db.isInTransaction() || GROUP_MESSAGES.has(type);
    this.owner = holds ? item.handlerId : null;
  }
}
