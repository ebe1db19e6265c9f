/**
 * Uploads: checks, streams the bytes into the blob store, records the file and queues its
 * ingest. Knows nothing about HTTP; the REST upload route and the GraphQL `uploadFile`
 * mutation both call `upload` (they check authentication and the `write:upload` scope, and
 * pass the viewer's memberships). Reads for a viewer (`list`, `fileOf`) take the viewer's
 * memberships too: this service decides which organization's files a viewer sees.
 *
 * Order of checks in `upload` (each one before any byte is stored):
 *  1. membership of `orgId`                     -> 403 FORBIDDEN `Insufficient permissions`
 *  2. the first bytes (up to 64 KiB) look like CSV text (`sniffCsv`; the client's content type
 *     is never trusted)                         -> 415 UNSUPPORTED_MEDIA_TYPE `Unsupported file content: <reason>`
 *  3. file type (pnl, performance, fx, benchmark: FILE_TYPES): detected from the header when not
 *     given (header.ts detectFileType); undetectable -> 415 naming the expected header columns;
 *     given but the header is another type      -> 400 BAD_USER_INPUT on field `fileType`
 *  4. the whole stream into the blob store, at most `config.storage.maxUploadBytes`
 *                                               -> 413 PAYLOAD_TOO_LARGE (partial blob deleted)
 *  5. one Prisma transaction: the UploadedFile row (status `uploaded`) and its `ingest` job.
 *     If that fails the blob is deleted, so there is never a blob without a row, a row without
 *     a blob, or a file that no job will ingest.
 *
 * The file is never held in memory: only the sniffed head (64 KiB plus at most one chunk).
 * The client's file name is sanitised for display (`sanitizeFileName`) and never used as a path:
 * the blob key is `${orgId}/${uuid}`.
 *
 * File statuses (see src/ingest/ingest-service.ts): uploaded -> processing -> processed | failed.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { AppError } from '../errors.ts';
import type { FileRowError, FileStatus, Prisma, PrismaClient, UploadedFile } from '../generated/prisma/client.ts';
import type { PrismaSelection } from '../db/prisma-selection.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import { COLUMN_SETS, FILE_TYPES, SNIFF_BYTES, detectFileType, sniffCsv, withArticle, type FileType } from '../ingest/csv-formats/index.ts';
import { INGEST_QUEUE, type IngestJobPayload } from '../ingest/ingest-job.ts';
import type { BlobStore } from './blob-store.ts';

export interface UploadInput {
  uploaderId: string;
  /** organization ids the uploader belongs to */
  memberOf: ReadonlySet<string>;
  orgId: string;
  /** null: detect from the header */
  fileType: FileType | null;
  file: { filename: string; createReadStream(): NodeJS.ReadableStream };
}

export interface StorageServiceDeps {
  prisma: PrismaClient;
  blobs: BlobStore;
  jobs: JobQueue;
  config: Pick<Config, 'storage'>;
  log: Logger;
}

export interface FileFilter {
  orgId: string;
  status?: FileStatus | null;
}

/** What to load of each file and, for a page, which rows (a Pothos prismaConnection's query). */
export type FileSelection = PrismaSelection<Prisma.UploadedFileFindManyArgs>;

const MAX_FILE_NAME_LENGTH = 255;

function columnList(columns: { readonly required: readonly string[]; readonly optional: readonly string[] }): string {
  return [...columns.required, ...columns.optional.map((c) => `${c} (optional)`)].join(', ');
}

/** "a, b, c or d" */
function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

export const EXPECTED_HEADERS = orList(FILE_TYPES.map((type) => `${withArticle(type)} header (${columnList(COLUMN_SETS[type])})`));

/** What a header that names no file type is not: "neither a pnl nor a performance header, nor an fx or a benchmark header". */
const NO_KNOWN_HEADER = `neither ${withArticle(FILE_TYPES[0])} nor ${withArticle(FILE_TYPES[1])} header${
  FILE_TYPES.length > 2 ? `, nor ${orList(FILE_TYPES.slice(2).map(withArticle))} header` : ''
}`;

/**
 * A client-supplied file name made safe to display and store: the last path component only
 * (both / and \ separators), Unicode NFC, no control or bidirectional-override characters,
 * whitespace collapsed, at most 255 characters (never splitting a surrogate pair).
 * Never used as a path. Empty or dot-only results become `upload.csv`.
 */
/** An error of the client's upload stream: kept when it has an HTTP status of its own (413, 499), else a 400. */
function uploadStreamError(error: unknown): unknown {
  if (error instanceof AppError || typeof (error as { status?: unknown } | null)?.status === 'number') return error;
  return new AppError('BAD_USER_INPUT', 'The uploaded file ended before it was complete (interrupted or malformed multipart body)', { field: 'file' });
}

export function sanitizeFileName(name: string | null | undefined): string {
  let text = String(name ?? '').normalize('NFC');
  text = text.split(/[\\/]/).pop() ?? '';
  // C0/C1 controls, DEL, bidi embeddings/overrides/isolates, zero-width and BOM characters
  text = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '');
  text = text.replace(/\s+/g, ' ').trim();
  if (/^\.*$/.test(text)) return 'upload.csv';
  const chars = Array.from(text);
  return chars.length > MAX_FILE_NAME_LENGTH ? chars.slice(0, MAX_FILE_NAME_LENGTH).join('') : text;
}

export class StorageService {
  private readonly prisma: PrismaClient;
  private readonly blobs: BlobStore;
  private readonly jobs: JobQueue;
  private readonly maxUploadBytes: number;
  private readonly log: Logger;

  constructor(deps: StorageServiceDeps) {
    this.prisma = deps.prisma;
    this.blobs = deps.blobs;
    this.jobs = deps.jobs;
    this.maxUploadBytes = deps.config.storage.maxUploadBytes;
    this.log = deps.log;
  }

  async upload(input: UploadInput): Promise<UploadedFile> {
    if (!input.memberOf.has(input.orgId)) throw AppError.forbidden();

    let stream: NodeJS.ReadableStream;
    try {
      stream = input.file.createReadStream();
    } catch (error) {
      throw uploadStreamError(error); // the upload already failed while the resolver waited
    }
    const source = (stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
    // The upload stream fails when the client's body ends mid-file or is malformed: the
    // client's fault (400), unlike a failure of our own storage (500).
    const iterator = {
      next: () => source.next().catch((error: unknown) => Promise.reject(uploadStreamError(error))),
      return: async () => {
        await source.return?.();
      },
    };
    let streamDone = false;
    const head: Buffer[] = [];
    let headBytes = 0;
    try {
      while (headBytes < SNIFF_BYTES) {
        const next = await iterator.next();
        if (next.done) {
          streamDone = true;
          break;
        }
        const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
        head.push(chunk);
        headBytes += chunk.length;
      }
      const first = Buffer.concat(head, headBytes).subarray(0, SNIFF_BYTES);
      const fileType = this.checkContent(first, input.fileType);

      const fileId = randomUUID();
      const blobKey = `${input.orgId}/${fileId}`;
      async function* everything(): AsyncGenerator<Buffer> {
        yield* head;
        head.length = 0; // let the sniffed chunks go once written
        if (streamDone) return;
        for (;;) {
          const next = await iterator.next();
          if (next.done) {
            streamDone = true;
            return;
          }
          yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
        }
      }
      const { sizeBytes, sha256 } = await this.blobs.put(blobKey, everything(), { maxBytes: this.maxUploadBytes });

      try {
        const file = await this.prisma.$transaction(async (tx) => {
          const created = await tx.uploadedFile.create({
            data: {
              id: fileId,
              orgId: input.orgId,
              uploaderId: input.uploaderId,
              fileName: sanitizeFileName(input.file.filename),
              fileType,
              sizeBytes: BigInt(sizeBytes),
              sha256,
              blobKey,
              status: 'uploaded',
            },
          });
          await this.jobs.enqueue(INGEST_QUEUE, { fileId } satisfies IngestJobPayload, { tx });
          return created;
        });
        this.log.info({ fileId, orgId: input.orgId, fileType, sizeBytes, sha256 }, 'file uploaded and queued for ingest');
        return file;
      } catch (error) {
        await this.blobs.delete(blobKey).catch((cleanupError: unknown) => {
          this.log.error({ err: cleanupError, blobKey }, 'could not delete the blob of a failed upload');
        });
        throw error;
      }
    } finally {
      // Stop reading a rejected or failed upload: the source is destroyed (no-op when consumed).
      if (!streamDone) await iterator.return?.().catch(() => {});
    }
  }

  /** The 415/400 decisions on the first bytes; returns the file type to record. */
  private checkContent(first: Buffer, requested: FileType | null): FileType {
    const sniff = sniffCsv(first);
    if (!sniff.ok) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Unsupported file content: ${sniff.reason}`);
    const detected = detectFileType(first.toString('utf8'));
    if (requested === null) {
      if (detected === null) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Unsupported file content: the header row is ${NO_KNOWN_HEADER}; expected ${EXPECTED_HEADERS}`);
      }
      return detected;
    }
    if (detected !== null && detected !== requested) {
      throw AppError.badInput('fileType', `is ${requested} but the file's header is ${withArticle(detected)} header`);
    }
    // An incomplete header of the requested type is accepted here; ingest reports exactly what is wrong.
    return requested;
  }

  /**
   * An organization's files, newest first, for a member of it: FORBIDDEN unless `memberOf` (the
   * viewer's organizations) has `orgId` (admins included: scopes are not tenancy).
   */
  async list(memberOf: ReadonlySet<string>, filter: FileFilter, selection: FileSelection = {}): Promise<UploadedFile[]> {
    if (!memberOf.has(filter.orgId)) throw AppError.forbidden();
    return this.prisma.uploadedFile.findMany({
      ...selection,
      where: { orgId: filter.orgId, ...(filter.status ? { status: filter.status } : {}) },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
  }

  /** One file of an organization in `memberOf`, or null: another organization's file is as missing as an unknown one. */
  fileOf(memberOf: ReadonlySet<string>, fileId: string, selection: Omit<FileSelection, 'take' | 'skip' | 'cursor'> = {}): Promise<UploadedFile | null> {
    return this.prisma.uploadedFile.findFirst({ ...selection, where: { id: fileId, orgId: { in: [...memberOf] } } });
  }

  /** One file, or null, whoever's it is: for the ingest and operators, never for a viewer (that is fileOf). */
  get(fileId: string): Promise<UploadedFile | null> {
    return this.prisma.uploadedFile.findUnique({ where: { id: fileId } });
  }

  /** The stored row errors of a file (at most 1000 are stored; `errorCount` has the total), by line. */
  rowErrors(fileId: string, take = 100): Promise<FileRowError[]> {
    return this.prisma.fileRowError.findMany({ where: { fileId }, orderBy: [{ line: 'asc' }, { column: 'asc' }, { id: 'asc' }], take });
  }
}
