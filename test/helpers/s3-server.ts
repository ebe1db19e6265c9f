/**
 * A real S3-compatible server for tests: `s3rver` (npm, devDependency) in a child process of its
 * own, listening on a random loopback port, keeping its objects in a temp directory, with one
 * bucket created. `stop()` ends that child (and only it) and removes the directory.
 *
 * s3rver speaks the S3 REST API (SigV4 signatures checked against S3RVER/S3RVER) including
 * CreateMultipartUpload / UploadPart / CompleteMultipartUpload, but answers NotImplemented to
 * ListMultipartUploads and has no AbortMultipartUpload. The child adds those two operations on
 * s3rver's own on-disk layout (`<dir>/<bucket>/._S3rver_uploads/<uploadId>/`), in front of its
 * router, so the store's abort-on-failure and sweep paths run against real requests and the
 * tests can check that no multipart upload is left behind. (They skip s3rver's signature check.)
 *
 * This file is also the child's program: `node --import tsx test/helpers/s3-server.ts <dir> <bucket>`
 * prints `{"port":N}` once listening and exits on SIGTERM or when its stdin closes (the parent died).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface S3TestServer {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  bucket: string;
  /** where s3rver keeps its buckets */
  dir: string;
  /** The service's variables for this server (credentials come from the AWS SDK's chain: set them with `useCredentials`). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);

/** Sets the AWS SDK's standard credential variables to s3rver's (the chain reads process.env). */
export function useS3rverCredentials(): void {
  process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
}

export async function startS3Server(options: { bucket?: string } = {}): Promise<S3TestServer> {
  const bucket = options.bucket ?? 'gateway-test';
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  const child = spawn(process.execPath, ['--import', 'tsx', THIS_FILE, dir, bucket], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let port: number;
  try {
    port = await readPort(child);
  } catch (error) {
    await stopChild(child);
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    dir,
    env: { BLOB_STORE: 's3', S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: 'true', S3_REGION: 'us-east-1' },
    async stop() {
      await stopChild(child);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

function readPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('s3rver did not start within 30 s')), 30_000);
    const onData = (data: Buffer) => {
      out += data.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stdout?.resume(); // keep draining anything else it prints
      resolve((JSON.parse(line) as { port: number }).port);
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited before listening (code ${code}, signal ${signal}): ${out}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// The child: s3rver plus ListMultipartUploads and AbortMultipartUpload.

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  status: number;
  body: unknown;
}
type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;
interface S3rverApp {
  middleware: Middleware[];
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverApp;
type S3ErrorConstructor = new (code: string, message?: string) => Error;

const UPLOADS_DIR = '._S3rver_uploads';

function multipartShim(root: string, S3Error: S3ErrorConstructor): Middleware {
  return async (ctx, next) => {
    const match = /^\/([^/]+)(?:\/(.*))?$/.exec(ctx.path);
    if (!match) return next();
    const [, bucket, key = ''] = match;
    const uploads = path.join(root, bucket, UPLOADS_DIR);
    const uploadId = ctx.query.uploadId;
    if (ctx.method === 'DELETE' && key && typeof uploadId === 'string') {
      if (!/^[0-9a-f]+$/.test(uploadId)) throw new S3Error('NoSuchUpload', 'The specified upload does not exist.');
      const uploadDir = path.join(uploads, uploadId);
      const storedKey = await fs.readFile(path.join(uploadDir, 'key'), 'utf8').catch(() => undefined);
      if (storedKey !== key) throw new S3Error('NoSuchUpload', 'The specified upload does not exist.');
      await fs.rm(uploadDir, { recursive: true, force: true });
      ctx.status = 204;
      ctx.body = null;
      return;
    }
    if (ctx.method === 'GET' && !key && 'uploads' in ctx.query) {
      const ids = await fs.readdir(uploads).catch(() => [] as string[]);
      const entries: Array<{ Key: string; UploadId: string; Initiated: string }> = [];
      for (const id of ids.sort()) {
        try {
          const file = path.join(uploads, id, 'key');
          const [storedKey, stat] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
          const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
          if (storedKey.startsWith(prefix)) entries.push({ Key: storedKey, UploadId: id, Initiated: stat.mtime.toISOString() });
        } catch {
          /* completed or aborted meanwhile */
        }
      }
      ctx.body = {
        ListMultipartUploadsResult: {
          Bucket: bucket,
          KeyMarker: '',
          UploadIdMarker: '',
          MaxUploads: 1000,
          IsTruncated: false,
          ...(entries.length ? { Upload: entries.map((entry) => ({ ...entry, StorageClass: 'STANDARD' })) } : {}),
        },
      };
      return;
    }
    return next();
  };
}

async function serve(dir: string, bucket: string): Promise<void> {
  const require = createRequire(import.meta.url);
  const S3rver = require('s3rver') as S3rverConstructor;
  const S3Error = require('s3rver/lib/models/error') as S3ErrorConstructor;
  const app = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
  // s3rver's last middleware is its router: the two extra operations go just before it (after the
  // XML encoder and the virtual-host rewriting).
  app.middleware.splice(app.middleware.length - 1, 0, multipartShim(dir, S3Error));
  const { port } = await app.run();
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  const quit = () => {
    app.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', quit);
  process.stdin.on('end', quit).on('close', quit).resume();
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const [dir, bucket] = process.argv.slice(2);
  serve(dir, bucket).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
