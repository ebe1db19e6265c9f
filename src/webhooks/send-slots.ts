/** Attempts sent to one endpoint at once, per instance. */
export const WEBHOOK_ENDPOINT_CONCURRENCY = 4;

/** What a claim may take now: the endpoints and owners at their cap, and the free slots of the others. */
export interface SlotRoom {
  fullEndpoints: string[];
  fullOwners: string[];
  /** free slots of the endpoints with attempts running; every other endpoint has `freePerEndpoint` */
  freeByEndpoint: Record<string, number>;
  freePerEndpoint: number;
  /** free slots of the owners with attempts running; every other owner has `freePerOwner` */
  freeByOwner: Record<string, number>;
  freePerOwner: number;
}

/** Counts of attempts running per endpoint and per owner on this instance. */
export class SendSlots {
  private readonly byEndpoint = new Map<string, number>();
  private readonly byOwner = new Map<string, number>();

  constructor(private readonly perOwner: number) {}

  room(): SlotRoom {
    const free = (counts: Map<string, number>, cap: number) => Object.fromEntries([...counts].map(([key, n]) => [key, Math.max(0, cap - n)]));
    const freeByEndpoint = free(this.byEndpoint, WEBHOOK_ENDPOINT_CONCURRENCY);
    const freeByOwner = free(this.byOwner, this.perOwner);
    const full = (byKey: Record<string, number>) => Object.keys(byKey).filter((key) => byKey[key] === 0);
    return {
      fullEndpoints: full(freeByEndpoint),
      fullOwners: full(freeByOwner),
      freeByEndpoint,
      freePerEndpoint: WEBHOOK_ENDPOINT_CONCURRENCY,
      freeByOwner,
      freePerOwner: this.perOwner,
    };
  }

  /** A release function, or null when the endpoint or the owner is at its cap. */
  take(endpointId: string, owner: string): (() => void) | null {
    if ((this.byEndpoint.get(endpointId) ?? 0) >= WEBHOOK_ENDPOINT_CONCURRENCY) return null;
    if ((this.byOwner.get(owner) ?? 0) >= this.perOwner) return null;
    bump(this.byEndpoint, endpointId, 1);
    bump(this.byOwner, owner, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      bump(this.byEndpoint, endpointId, -1);
      bump(this.byOwner, owner, -1);
    };
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
