/**
 * Whether the service can listen where it is told to, asked before anything else is done (the
 * first start migrates and seeds the demo, a minute or two on a busy machine, and prints the demo's
 * credentials only once it listens: a taken port found at the end would lose them).
 */
import net from 'node:net';

export class PortInUseError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(
      `Port ${port} on ${host} is already in use, so the service cannot listen there. ` +
        `Stop what uses it (ss -ltnp 'sport = :${port}'), or choose another port with PORT, e.g. PORT=${port + 1} npm start (PORT=0: any free port).`,
    );
  }
}

/** Resolves when `host:port` could be listened on now; rejects with PortInUseError when it is taken. */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(host, port) : error));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
