/** A stand-in HTTP server (a fake provider, a login host) listening on a free port of 127.0.0.1. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on a free port of 127.0.0.1; resolves with `http://127.0.0.1:PORT`. */
export async function listenLocally(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
