/**
 * Concurrent lookups of the same key share one query, and every caller still gets an answer read
 * after it asked: a caller that arrives while a lookup is running waits for the next one, which
 * starts when the running one settles and serves everyone who arrived meanwhile. So a burst of N
 * requests with one credential costs two reads, not N, and nothing is cached: a credential revoked
 * before a request arrived is never accepted for it (the read that answers it started later).
 */
export class FreshCoalescer<V> {
  private readonly slots = new Map<string, { running: Promise<V>; next?: Promise<V> }>();

  run(key: string, load: () => Promise<V>): Promise<V> {
    const slot = this.slots.get(key);
    if (!slot) return this.begin(key, load);
    slot.next ??= slot.running.then(settled, settled).then(() => {
      this.slots.delete(key);
      return this.begin(key, load);
    });
    return slot.next;
  }

  private begin(key: string, load: () => Promise<V>): Promise<V> {
    const running = load();
    const slot: { running: Promise<V>; next?: Promise<V> } = { running };
    this.slots.set(key, slot);
    // Left in place while a next lookup is queued: that one replaces the slot when it begins.
    running.then(settled, settled).then(() => {
      if (this.slots.get(key) === slot && !slot.next) this.slots.delete(key);
    });
    return running;
  }
}

function settled(): void {}
