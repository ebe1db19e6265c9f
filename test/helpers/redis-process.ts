/**
 * A redis-server of a test's own, on a port of its own, without persistence: fault tests stop,
 * pause and kill it without touching the shared Redis. Only the process it started is signalled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';

export class RedisProcess {
  private process: ChildProcess | null = null;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it and waits (up to 30 s) until it answers PING. */
  async start(): Promise<void> {
    this.process = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const giveUp = Date.now() + 30_000;
    while (!(await pingRedis(this.url))) {
      if (Date.now() > giveUp) throw new Error(`redis-server on port ${this.port} did not answer PING`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** SIGSTOP / SIGCONT: a Redis that keeps its connections open but does not answer (hung, or a network black hole). */
  pause(paused: boolean): void {
    this.process?.kill(paused ? 'SIGSTOP' : 'SIGCONT');
  }

  /** SIGKILL, as a crash or a lost host; resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.process;
    this.process = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** True when a Redis answers PING at `url` (no retries). */
export async function pingRedis(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
