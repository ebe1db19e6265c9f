/**
 * Counts of something held per key (sockets per credential, per client address), each key capped
 * at the same number: what one client may hold at once, so it cannot take everyone's share.
 */
export class KeyedQuota {
  private readonly held = new Map<string, number>();

  constructor(readonly cap: number) {}

  /** How many `key` holds now. */
  count(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** Whether `key` could take one more now. */
  hasRoom(key: string): boolean {
    return this.count(key) < this.cap;
  }

  /** Takes one for `key` and returns how to give it back (once), or null when the key holds its cap. */
  take(key: string): (() => void) | null {
    const count = this.held.get(key) ?? 0;
    if (count >= this.cap) return null;
    this.held.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }
}
