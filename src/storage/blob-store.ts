/**
 * Blob storage for uploaded files. The service generates every key itself
 * (`${orgId}/${uuid}`); a client's file name is never part of a key or a path.
 *
 * `LocalBlobStore` keeps blobs under one directory (DATA_DIR/blobs by default):
 * - `put` streams the source through a SHA-256 / byte-count transform into a temp
 *   file under `<dir>/.incoming/`, with backpressure (stream.pipeline), flushes it
 *   and renames it into place, so a reader never sees a half-written blob and a
 *   crash leaves at most a temp file (swept by `sweepIncoming`). Memory use is one
 *   chunk, whatever the file size.
 * - Exceeding `maxBytes` aborts the write, deletes the partial file and throws
 *   AppError PAYLOAD_TOO_LARGE. A source error (client disconnect) deletes the
 *   partial file too and passes the error on.
 * - Keys are checked against path traversal twice: a strict character set with no
 *   `.`/`..` segments, and the resolved path must stay inside the directory.
 *
 * An S3-compatible store would implement the same interface.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../errors.ts';

export interface PutResult {
  sizeBytes: number;
  /** lowercase hex SHA-256 of the stored bytes */
  sha256: string;
}

export interface BlobStore {
  /** `local`, `s3`, ... (reported by the detailed health check) */
  readonly kind: string;
  /** Streams `source` into the blob `key`. Throws AppError PAYLOAD_TOO_LARGE past `maxBytes` (nothing is kept). */
  put(key: string, source: AsyncIterable<Buffer> | NodeJS.ReadableStream, opts: { maxBytes: number }): Promise<PutResult>;
  /** A stream of the blob's bytes; a missing blob errors the stream (ENOENT). */
  get(key: string): NodeJS.ReadableStream;
  /** Removes the blob; a missing blob is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Where blobs live and how much room is left there, when the store knows. */
  stats(): Promise<{ path?: string; freeBytes?: number }>;
  /** Removes partial writes a crash left behind; returns how many. */
  sweepIncoming(olderThanMs?: number): Promise<number>;
}

/** One path segment: starts with a letter or digit (so never `.` or `..`), then [A-Za-z0-9._-]. */
const KEY_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_KEY_LENGTH = 512;
const INCOMING_DIR = '.incoming';

/** Throws unless `key` is a safe relative blob key such as `org-uuid/file-uuid`. */
export function assertValidBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new Error(`Invalid blob key: must be 1..${MAX_KEY_LENGTH} characters`);
  }
  const segments = key.split('/');
  if (!segments.every((segment) => KEY_SEGMENT.test(segment))) {
    throw new Error(`Invalid blob key ${JSON.stringify(key)}: segments must match ${KEY_SEGMENT.source}`);
  }
}

/** Counts and hashes the bytes going through; errors out once more than `maxBytes` have passed. */
class MeteringTransform extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: unknown, _encoding: BufferEncoding, callback: TransformCallback): void {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    this.bytes += buffer.length;
    if (this.bytes > this.maxBytes) {
      callback(tooLarge(this.maxBytes));
      return;
    }
    this.hash.update(buffer);
    callback(null, buffer);
  }
}

export function tooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `File exceeds the upload limit of ${maxBytes} bytes`, { maxBytes });
}

function isNodeStream(source: AsyncIterable<Buffer> | NodeJS.ReadableStream): source is NodeJS.ReadableStream {
  return typeof (source as NodeJS.ReadableStream).pipe === 'function';
}

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local';
  readonly dir: string;
  private ready: Promise<void> | undefined;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
  }

  /** Absolute path of a key's blob; throws on a key that is not safe. */
  pathFor(key: string): string {
    assertValidBlobKey(key);
    const resolved = path.resolve(this.dir, key);
    if (!resolved.startsWith(this.dir + path.sep)) throw new Error(`Invalid blob key ${JSON.stringify(key)}: escapes the store`);
    return resolved;
  }

  private ensureDirs(): Promise<void> {
    this.ready ??= fsp.mkdir(path.join(this.dir, INCOMING_DIR), { recursive: true }).then(() => undefined);
    return this.ready;
  }

  async put(key: string, source: AsyncIterable<Buffer> | NodeJS.ReadableStream, opts: { maxBytes: number }): Promise<PutResult> {
    const target = this.pathFor(key);
    await this.ensureDirs();
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(this.dir, INCOMING_DIR, `${randomUUID()}.part`);
    const meter = new MeteringTransform(opts.maxBytes);
    const input = isNodeStream(source) ? source : Readable.from(source, { objectMode: false });
    // `flush: true` fsyncs before close, so the rename below publishes complete bytes.
    const output = fs.createWriteStream(temp, { flags: 'wx', flush: true });
    try {
      await pipeline(input, meter, output);
      await fsp.rename(temp, target);
    } catch (error) {
      // The pipeline can fail before the file's open(2) has run (a source that fails at once, a
      // limit passed by the first chunk): wait until the stream has closed, so the file exists by
      // then if it ever will, and the removal below cannot come before its creation.
      if (!output.closed) await new Promise<void>((resolve) => output.once('close', () => resolve()));
      await fsp.rm(temp, { force: true }).catch(() => {});
      // a source that is a stream we did not finish reading is released by pipeline (destroyed)
      throw error;
    }
    return { sizeBytes: meter.bytes, sha256: meter.hash.digest('hex') };
  }

  get(key: string): NodeJS.ReadableStream {
    return fs.createReadStream(this.pathFor(key));
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathFor(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      const stat = await fsp.stat(this.pathFor(key));
      return stat.isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async stats(): Promise<{ path: string; freeBytes?: number }> {
    await this.ensureDirs();
    try {
      const s = await fsp.statfs(this.dir);
      return { path: this.dir, freeBytes: Number(s.bavail) * Number(s.bsize) };
    } catch {
      return { path: this.dir };
    }
  }

  /** Deletes temp files left by a crash during `put` (older than `olderThanMs`). Returns how many. */
  async sweepIncoming(olderThanMs = 60 * 60 * 1000): Promise<number> {
    await this.ensureDirs();
    const dir = path.join(this.dir, INCOMING_DIR);
    let removed = 0;
    for (const name of await fsp.readdir(dir)) {
      const file = path.join(dir, name);
      try {
        const stat = await fsp.stat(file);
        if (Date.now() - stat.mtimeMs >= olderThanMs) {
          await fsp.rm(file, { force: true });
          removed++;
        }
      } catch {
        /* raced with another sweeper or a finishing put */
      }
    }
    return removed;
  }
}
