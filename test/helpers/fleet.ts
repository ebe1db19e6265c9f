/**
 * A fleet as it is deployed (deploy/, docs/deployment.md): N service processes sharing one
 * PostgreSQL schema, one Redis (with a key prefix of its own), one S3-compatible bucket (s3rver)
 * and one session secret, each with its own DATA_DIR and port, behind haproxy configured by
 * deploy/haproxy.cfg. Instances are named app1..appN, as haproxy's servers (the X-Served-By
 * header of every answer through the balancer names the instance).
 *
 * Needs DATABASE_URL (PostgreSQL: processes cannot share the embedded database), REDIS_URL and
 * haproxy. `stop()` ends the processes this fleet started (haproxy, instances, s3rver), drops
 * the schema and removes the directories.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, startChildService, type ChildService } from './child-service.ts';
import { startHaproxy, type LoadBalancer } from './load-balancer.ts';
import { createSchema, dropSchema } from './postgres-schema.ts';
import { S3RVER_CREDENTIALS, startS3Server, type S3TestServer } from './s3-server.ts';

export interface FleetInstance {
  name: string;
  port: number;
  dataDir: string;
  tmpDir: string;
  /** the current process (replaced by restart) */
  service: ChildService;
}

export interface Fleet {
  balancer: LoadBalancer;
  s3: S3TestServer;
  instances: FleetInstance[];
  /** the variables every instance shares (database, Redis, bucket, secret, timings) */
  env: Record<string, string>;
  schema: string;
  byName(name: string): FleetInstance;
  byPid(pid: number): FleetInstance | undefined;
  /** SIGKILL, waits for the exit */
  kill(name: string): Promise<void>;
  /** SIGTERM, waits for the exit (the drain and the graceful shutdown included) */
  terminate(name: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** starts the instance again on its port and directories; resolves once it listens */
  start(name: string): Promise<FleetInstance>;
  /** runs the operator CLI against the fleet's database */
  cli(args: string[]): ReturnType<ChildService['cli']>;
  stop(): Promise<void>;
}

export interface FleetOptions {
  size?: number;
  /** extra variables for every instance */
  env?: Record<string, string>;
}

export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const baseUrl = process.env.DATABASE_URL?.trim();
  const redisUrl = process.env.REDIS_URL?.trim();
  if (!baseUrl || !redisUrl) throw new Error('a fleet needs DATABASE_URL (PostgreSQL) and REDIS_URL');
  const size = options.size ?? 3;
  const tag = randomBytes(4).toString('hex');
  const cleanups: Array<() => Promise<void>> = [];
  const instances: FleetInstance[] = [];
  let balancer: LoadBalancer | undefined;
  const stopAll = async () => {
    await balancer?.stop().catch(() => {});
    await Promise.all(instances.map((instance) => instance.service.cleanup().catch(() => {})));
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const s3 = await startS3Server({ bucket: `fleet-${tag}` });
    cleanups.push(() => s3.stop());
    const { schema, url } = await createSchema(baseUrl);
    cleanups.push(() => dropSchema(baseUrl, schema));
    const env: Record<string, string> = {
      DATABASE_URL: url,
      REDIS_URL: redisUrl,
      RATE_LIMIT_KEY_PREFIX: `fleet-${tag}`,
      SSO_JWT_SECRET: randomBytes(32).toString('hex'),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      ...s3.env,
      S3_PREFIX: `fleet-${tag}/`,
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      // readiness goes 503 on SIGTERM for this long while the instance still serves: longer
      // than haproxy needs to take it out of rotation (fall 2 x inter 1 s, plus slack)
      SHUTDOWN_DRAIN: '4s',
      JOB_STALE_AFTER: '3s',
      WORKER_POLL_INTERVAL: '200ms',
      ...options.env,
    };

    // ready = /readyz answers 200 (what haproxy checks; independent of LOG_LEVEL)
    const launch = async (instance: Omit<FleetInstance, 'service'>): Promise<ChildService> => {
      const service = await startChildService({
        reuse: { dataDir: instance.dataDir, tmpDir: instance.tmpDir, env: { DATABASE_URL: url } },
        env: { ...env, PORT: String(instance.port) },
        waitUntilReady: false,
      });
      // the helper picked a port of its own for its url; the instance listens on PORT
      service.port = instance.port;
      service.url = `http://127.0.0.1:${instance.port}`;
      const deadline = Date.now() + 120_000;
      let last = '';
      for (;;) {
        if (service.process.exitCode !== null || service.process.signalCode !== null) {
          throw new Error(`${instance.name} exited while starting\nstdout:\n${service.stdout.join('\n')}\nstderr:\n${service.stderr.join('\n')}`);
        }
        last = await fetch(`${service.url}/readyz`).then(
          async (response) => `${response.status} ${await response.text()}`,
          (error: unknown) => String(error),
        );
        if (last.startsWith('200 ')) return service;
        if (Date.now() > deadline) {
          service.process.kill('SIGKILL');
          throw new Error(
            `${instance.name} not ready within 120 s (last /readyz: ${last})\nstdout:\n${service.stdout.join('\n')}\nstderr:\n${service.stderr.join('\n')}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const prepare = async (index: number): Promise<Omit<FleetInstance, 'service'>> => ({
      name: `app${index + 1}`,
      port: await freePort(),
      dataDir: await fs.mkdtemp(path.join(os.tmpdir(), `fleet-app${index + 1}-data-`)),
      tmpDir: await fs.mkdtemp(path.join(os.tmpdir(), `fleet-app${index + 1}-tmp-`)),
    });
    const planned = await Promise.all(Array.from({ length: size }, (_, index) => prepare(index)));
    for (const plan of planned)
      cleanups.push(async () => {
        await fs.rm(plan.dataDir, { recursive: true, force: true });
        await fs.rm(plan.tmpDir, { recursive: true, force: true });
      });
    // the first one migrates the empty schema; the others start together (they would wait on the
    // migration lock anyway)
    instances.push({ ...planned[0], service: await launch(planned[0]) });
    const rest = await Promise.allSettled(planned.slice(1).map(async (plan) => ({ ...plan, service: await launch(plan) })));
    for (const result of rest) if (result.status === 'fulfilled') instances.push(result.value);
    const failed = rest.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    instances.sort((a, b) => a.name.localeCompare(b.name));

    balancer = await startHaproxy(instances.map((instance) => ({ name: instance.name, port: instance.port })));
    await balancer.waitForUp(instances.map((instance) => instance.name));
    const lb = balancer;

    const fleet: Fleet = {
      balancer: lb,
      s3,
      instances,
      env,
      schema,
      byName(name) {
        const found = instances.find((instance) => instance.name === name);
        if (!found) throw new Error(`no instance ${name}`);
        return found;
      },
      byPid: (pid) => instances.find((instance) => instance.service.pid === pid),
      async kill(name) {
        const { service } = fleet.byName(name);
        service.process.kill('SIGKILL');
        await service.exited;
      },
      async terminate(name) {
        const { service } = fleet.byName(name);
        service.process.kill('SIGTERM');
        return service.exited;
      },
      async start(name) {
        const instance = fleet.byName(name);
        if (instance.service.process.exitCode === null && instance.service.process.signalCode === null) throw new Error(`${name} is still running`);
        instance.service = await launch(instance);
        return instance;
      },
      cli: (args) => instances[0].service.cli(args),
      stop: stopAll,
    };
    return fleet;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
