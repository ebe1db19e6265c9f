/**
 * Which share of WebSocket connections a socket counts against (docs/limits.md): a socket with a
 * valid credential counts against that credential's (WS_SOCKETS_PER_CREDENTIAL), any other (no
 * credential yet, or an invalid one) against its client address's (WS_ANONYMOUS_SOCKETS_PER_ADDRESS).
 * The share is decided at the upgrade from the upgrade's own headers (a browser's session cookie,
 * a script's x-api-key), and again at connection_init when its payload names a credential; a
 * socket moves from one share to the other only if the new one has room.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Services } from '../../src/services.ts';
import { authenticate } from '../../src/context.ts';
import { KeyedQuota } from '../../src/util/keyed-quota.ts';

export interface Share {
  key: string;
  release: () => void;
}

export type Admission = { share: Share } | { refused: string };

export class SocketShares {
  private readonly byAddress: KeyedQuota;
  private readonly byCredential: KeyedQuota;

  constructor(private readonly services: Services) {
    const { limits } = services.config;
    this.byAddress = new KeyedQuota(limits.wsAnonymousSocketsPerAddress);
    this.byCredential = new KeyedQuota(limits.wsSocketsPerCredential);
  }

  /** The share a socket with these headers takes, or why there is no room (a database failure rejects). */
  async admit(headers: IncomingHttpHeaders, address: string): Promise<Admission> {
    if (!presentsCredential(headers)) return this.take(`address:${address}`);
    // A credential already known to hold its share is refused without asking the database again.
    const known = this.services.knownCredentials.ownerOf(headers)?.credential;
    if (known && !this.byCredential.hasRoom(known)) return this.take(known);
    const credential = await this.credentialKey(headers);
    return this.take(credential ?? `address:${address}`);
  }

  /**
   * The share after connection_init: the payload's credential's when it is valid and differs from
   * the current one; `current` is released only when the new share was taken.
   */
  async reassign(current: Share, headers: IncomingHttpHeaders): Promise<Admission> {
    const credential = presentsCredential(headers) ? await this.credentialKey(headers) : null;
    if (!credential || credential === current.key) return { share: current };
    const moved = this.take(credential);
    if ('share' in moved) current.release();
    return moved;
  }

  private take(key: string): Admission {
    const anonymous = key.startsWith('address:');
    const release = (anonymous ? this.byAddress : this.byCredential).take(key);
    if (release) return { share: { key, release } };
    return {
      refused: anonymous
        ? `Too many connections without a credential from this address: at most ${this.byAddress.cap} (WS_ANONYMOUS_SOCKETS_PER_ADDRESS)`
        : `Too many connections for this credential: at most ${this.byCredential.cap} (WS_SOCKETS_PER_CREDENTIAL)`,
    };
  }

  private async credentialKey(headers: IncomingHttpHeaders): Promise<string | null> {
    const { viewer } = await authenticate(this.services, headers);
    if (!viewer) return null;
    const key = `${viewer.credential.kind}:${viewer.credential.id}`;
    this.services.knownCredentials.remember(headers, { userId: viewer.user.id, credential: key });
    return key;
  }
}

/** Whether the headers carry anything that could be a credential (only then is the database asked). */
function presentsCredential(headers: IncomingHttpHeaders): boolean {
  return headers['x-api-key'] !== undefined || headers.authorization !== undefined || headers.cookie !== undefined;
}
