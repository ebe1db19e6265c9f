/**
 * Blob storage in an S3-compatible bucket (`BLOB_STORE=s3`), for a fleet: the instance that
 * accepts an upload and the one whose worker claims its ingest job need not be the same, so the
 * bytes must live where every instance can read them. Same contract as `LocalBlobStore`
 * (src/storage/blob-store.ts):
 *
 * - `put` streams the source through a SHA-256 / byte-count meter into a multipart upload
 *   (`@aws-sdk/lib-storage` `Upload`): parts of `partSizeBytes` (5 MiB, or more when `maxBytes`
 *   needs more than 10,000 parts), at most `queueSize` in flight, so memory stays at a few parts
 *   whatever the file size. A file smaller than one part is a single PutObject. The object only
 *   appears when CompleteMultipartUpload succeeds, so a reader never sees half a blob.
 * - Exceeding `maxBytes` stops reading the source, aborts the multipart upload (nothing is kept)
 *   and throws AppError PAYLOAD_TOO_LARGE. A source error (client disconnect) aborts it too and is
 *   passed on as it is. Any failure of the object store itself is AppError SERVICE_UNAVAILABLE
 *   (503 `{"error": "Object storage is unavailable; retry shortly"}`), logged with the SDK's
 *   reason; credentials are never logged (they come from the AWS SDK's standard chain).
 * - `get` returns a stream at once; a missing object errors it with code ENOENT, as the local
 *   store's read stream does. A missing bucket is an outage, not a missing blob, for both `get`
 *   and `exists` (the ingest marks a file failed for good when its blob is missing).
 * - `sweepIncoming` aborts incomplete multipart uploads under the prefix older than the threshold
 *   (a crash mid-upload leaves its parts behind and S3 keeps charging for them). The default is
 *   24 h, not the local store's 1 h: every instance sweeps the same bucket, and an upload another
 *   instance is still streaming must not be aborted under it.
 * - Keys are checked with `assertValidBlobKey` and stored as `<prefix><key>`.
 */
import { createHash } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { assertValidBlobKey, tooLarge, type BlobStore, type PutResult } from './blob-store.ts';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** For S3-compatible servers (MinIO, Ceph, ...); unset = AWS's own endpoint for the region. */
  endpoint?: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key` (most S3-compatible servers want it). */
  forcePathStyle?: boolean;
  /** Prepended to every key (`gateway/` -> `gateway/<org>/<file>`); a `/` is added when missing. */
  prefix?: string;
  /** Smallest part size (S3's minimum, 5 MiB, by default). */
  partSizeBytes?: number;
  /** Parts uploaded at once (2 by default). */
  queueSize?: number;
  /** Used instead of building a client from the options above (tests). */
  client?: S3Client;
  log?: Logger;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
const MAX_PARTS = 10_000;
/** Seconds a client is told to wait before retrying an upload the object store failed. */
export const OBJECT_STORE_RETRY_AFTER_SECONDS = 5;
export const OBJECT_STORE_UNAVAILABLE = 'Object storage is unavailable; retry shortly';

/** What the SDK's errors carry that we look at. */
interface SdkError {
  name?: string;
  message?: string;
  Code?: string;
  /** attempts: how many times the SDK tried (maxAttempts bounds it); totalRetryDelay: ms it waited between them. */
  $metadata?: { httpStatusCode?: number; attempts?: number; totalRetryDelay?: number };
}

function asSdkError(error: unknown): SdkError {
  return typeof error === 'object' && error !== null ? (error as SdkError) : {};
}

function status(error: unknown): number | undefined {
  return asSdkError(error).$metadata?.httpStatusCode;
}

export function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3';
  readonly bucket: string;
  readonly prefix: string;
  readonly endpoint: string | undefined;
  private readonly client: S3Client;
  private readonly minPartSize: number;
  private readonly queueSize: number;
  private readonly log: Logger | undefined;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.prefix = normalizePrefix(options.prefix);
    this.endpoint = options.endpoint;
    this.minPartSize = Math.max(MIN_PART_SIZE, options.partSizeBytes ?? MIN_PART_SIZE);
    this.queueSize = Math.max(1, options.queueSize ?? 2);
    this.log = options.log;
    this.client = options.client ?? new S3Client(s3ClientConfig(options));
  }

  /** The object key of a blob key; throws on a key that is not safe. */
  objectKey(key: string): string {
    assertValidBlobKey(key);
    return `${this.prefix}${key}`;
  }

  async put(key: string, source: AsyncIterable<Buffer> | NodeJS.ReadableStream, opts: { maxBytes: number }): Promise<PutResult> {
    const objectKey = this.objectKey(key);
    const meter = { bytes: 0, hash: createHash('sha256'), exceeded: false, sourceFailed: false, sourceError: undefined as unknown };
    async function* metered(): AsyncGenerator<Buffer> {
      const iterable = source as AsyncIterable<Buffer | string>;
      try {
        for await (const chunk of iterable) {
          const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
          meter.bytes += buffer.length;
          if (meter.bytes > opts.maxBytes) {
            meter.exceeded = true;
            throw tooLarge(opts.maxBytes); // returning from the loop releases the source
          }
          meter.hash.update(buffer);
          yield buffer;
        }
      } catch (error) {
        if (!meter.exceeded) {
          meter.sourceFailed = true;
          meter.sourceError = error;
        }
        throw error;
      }
    }
    const body = Readable.from(metered(), { objectMode: false });
    // A part must hold maxBytes / 10,000 at least, or a file at the limit would need too many parts.
    const partSize = Math.max(this.minPartSize, Math.ceil(opts.maxBytes / MAX_PARTS));
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: objectKey, Body: body, ContentType: 'application/octet-stream' },
      partSize,
      queueSize: this.queueSize,
      // on any failure lib-storage sends AbortMultipartUpload for the parts it created
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      body.destroy(); // stop reading the source (no-op when it already ended)
      if (meter.exceeded || meter.sourceFailed) {
        // The abort that follows a failure can itself fail (the store went away as well); the
        // parts are then left for sweepIncoming. The caller hears about its own problem.
        if (!isOwnError(error, meter))
          this.warn('put', error, { key: objectKey, detail: 'abort after a failed upload failed; sweepIncoming removes the parts' });
        if (meter.exceeded) throw tooLarge(opts.maxBytes);
        throw meter.sourceError;
      }
      throw this.unavailable('put', error, objectKey);
    }
    return { sizeBytes: meter.bytes, sha256: meter.hash.digest('hex') };
  }

  get(key: string): NodeJS.ReadableStream {
    const objectKey = this.objectKey(key);
    const out = new PassThrough();
    const abort = new AbortController();
    const onEarlyClose = () => abort.abort();
    out.once('close', onEarlyClose);
    this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }), { abortSignal: abort.signal }).then(
      (response) => {
        out.off('close', onEarlyClose);
        const objectBody = response.Body;
        if (!(objectBody instanceof Readable)) {
          out.destroy(new Error('The object store returned no readable body'));
          return;
        }
        if (out.destroyed) {
          objectBody.destroy();
          return;
        }
        objectBody.once('error', (error) => out.destroy(this.unavailable('get', error, objectKey)));
        out.once('close', () => objectBody.destroy());
        objectBody.pipe(out);
      },
      async (error: unknown) => {
        if (out.destroyed) return; // the reader gave up first: nothing to report
        if (status(error) === 404 && asSdkError(error).name !== 'NoSuchBucket') {
          out.destroy(notFound(key));
          return;
        }
        out.destroy(this.unavailable('get', error, objectKey));
      },
    );
    return out;
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    try {
      // S3 answers 204 for a key that is not there: deleting twice is fine
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }));
    } catch (error) {
      if (status(error) === 404 && asSdkError(error).name !== 'NoSuchBucket') return;
      throw this.unavailable('delete', error, objectKey);
    }
  }

  async exists(key: string): Promise<boolean> {
    const objectKey = this.objectKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return true;
    } catch (error) {
      if (status(error) !== 404) throw this.unavailable('exists', error, objectKey);
    }
    // A HEAD's 404 has no body to tell a missing object from a missing bucket: ask about the bucket.
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      throw this.unavailable('exists', error, objectKey);
    }
    return false;
  }

  /** Where blobs live; the bucket is probed (HeadBucket), so an unreachable store fails the health check. No free space: a bucket has none to report. */
  async stats(): Promise<{ path: string; bucket: string; endpoint?: string }> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      throw this.unavailable('stats', error);
    }
    return { path: `s3://${this.bucket}/${this.prefix}`, bucket: this.bucket, ...(this.endpoint ? { endpoint: this.endpoint } : {}) };
  }

  /** Aborts multipart uploads under the prefix started more than `olderThanMs` ago. Returns how many. */
  async sweepIncoming(olderThanMs = 24 * 60 * 60 * 1000): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      const page = await this.client
        .send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.prefix || undefined, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }))
        .catch((error: unknown) => Promise.reject(this.unavailable('sweep', error)));
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated.getTime() > cutoff) continue;
        if (!upload.Key.startsWith(this.prefix)) continue;
        try {
          await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }));
          removed++;
        } catch (error) {
          // NoSuchUpload: completed or aborted by another instance meanwhile
          if (status(error) !== 404) throw this.unavailable('sweep', error, upload.Key);
        }
      }
      if (!page.IsTruncated) break;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
      if (!keyMarker && !uploadIdMarker) break;
    }
    return removed;
  }

  /** Releases the client's sockets. */
  close(): void {
    this.client.destroy();
  }

  private unavailable(operation: string, error: unknown, key?: string): AppError {
    this.warn(operation, error, key ? { key } : {});
    return new AppError('SERVICE_UNAVAILABLE', OBJECT_STORE_UNAVAILABLE, { retryAfterSeconds: OBJECT_STORE_RETRY_AFTER_SECONDS });
  }

  private warn(operation: string, error: unknown, extra: Record<string, unknown>): void {
    const e = asSdkError(error);
    // name, HTTP status and message only: never the request (its signature) or the client config
    this.log?.warn(
      {
        operation,
        bucket: this.bucket,
        ...extra,
        errorName: e.name,
        httpStatus: e.$metadata?.httpStatusCode,
        attempts: e.$metadata?.attempts,
        retryDelayMs: e.$metadata?.totalRetryDelay,
        err: e.message,
      },
      'object store request failed',
    );
  }
}

/** The error a missing blob's stream fails with: like fs.createReadStream's, code ENOENT. */
function notFound(key: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such blob '${key}'`), { code: 'ENOENT', errno: -2, syscall: 'open' });
}

function isOwnError(error: unknown, meter: { exceeded: boolean; sourceError: unknown }): boolean {
  if (meter.exceeded) return error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE';
  return error === meter.sourceError;
}

function s3ClientConfig(options: S3BlobStoreOptions): S3ClientConfig {
  return {
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    maxAttempts: 3,
    // Never hang on an unreachable store: 5 s to connect; a socket idle for 2 minutes is dropped
    // (long enough for an ingest that pauses reading while it writes a batch).
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
    // Many S3-compatible servers do not support the SDK's default CRC32 checksums on every
    // request (the SHA-256 recorded by `put` covers integrity); AWS itself keeps the defaults.
    ...(options.endpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED' as const, responseChecksumValidation: 'WHEN_REQUIRED' as const } : {}),
  };
}
