import { builder } from './builder.ts';
import { AppError } from '../src/errors.ts';
import { tooLarge } from '../src/storage/blob-store.ts';
import { forwardPage } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import { COLUMN_SETS, FILE_TYPES } from '../src/ingest/csv-formats/index.ts';
import { deprecated } from './deprecation.ts';

const FileTypeEnum = builder.enumType('FileType', { values: FILE_TYPES });
const FileStatusEnum = builder.enumType('FileStatus', {
  description: 'uploaded -> processing -> processed | failed.',
  values: ['uploaded', 'processing', 'processed', 'failed'] as const,
});

builder.prismaObject('FileRowError', {
  description: 'A row of an uploaded file that failed validation (line 1 is the header).',
  fields: (t) => ({
    line: t.exposeInt('line'),
    column: t.exposeString('column', { nullable: true }),
    message: t.exposeString('message'),
  }),
});

builder.prismaObject('FileRowWarning', {
  description: "A row of a processed file that loaded but counts in no return, e.g. a cash flow on its entity's first valuation date (line 1 is the header).",
  fields: (t) => ({
    line: t.exposeInt('line'),
    column: t.exposeString('column', { nullable: true }),
    message: t.exposeString('message'),
  }),
});

builder.prismaObject('UploadedFile', {
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    orgId: t.expose('orgId', { type: 'UUID' }),
    uploaderId: t.expose('uploaderId', { type: 'UUID', nullable: true }),
    fileName: t.exposeString('fileName', { description: 'The client file name, sanitised; display only, never a path.' }),
    fileType: t.expose('fileType', { type: FileTypeEnum }),
    sizeBytes: t.expose('sizeBytes', { type: 'SafeInt' }),
    sha256: t.exposeString('sha256'),
    status: t.expose('status', { type: FileStatusEnum }),
    statusDetail: t.exposeString('statusDetail', { nullable: true }),
    rowCount: t.exposeInt('rowCount', { nullable: true }),
    errorCount: t.exposeInt('errorCount'),
    warningCount: t.exposeInt('warningCount', {
      description: 'Rows of a processed file that loaded but count in no return (all of them; rowWarnings holds the first 1000). Replaced by every ingest.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    processedAt: t.expose('processedAt', { type: 'DateTime', nullable: true }),
    rowErrors: t.relation('rowErrors', {
      args: { first: t.arg.int({ defaultValue: 100 }) },
      query: (args) => ({ take: Math.min(Math.max(args.first ?? 100, 1), 1000), orderBy: [{ line: 'asc' }, { id: 'asc' }] }),
    }),
    rowWarnings: t.relation('rowWarnings', {
      args: { first: t.arg.int({ defaultValue: 100 }) },
      query: (args) => ({ take: Math.min(Math.max(args.first ?? 100, 1), 1000), orderBy: [{ line: 'asc' }, { id: 'asc' }] }),
    }),
  }),
});

const UploadFormat = builder.simpleObject('UploadFormat', {
  description: 'The header columns of one file type (any order; names are matched case-insensitively).',
  fields: (t) => ({
    fileType: t.field({ type: FileTypeEnum }),
    requiredColumns: t.stringList(),
    optionalColumns: t.stringList(),
  }),
});

const UploadLimits = builder.simpleObject('UploadLimits', {
  description: 'What an upload may be, so a client can check a file before sending it.',
  fields: (t) => ({
    maxBytes: t.field({
      type: 'SafeInt',
      description: 'Largest file accepted, in bytes (UPLOAD_MAX_BYTES); a larger one is refused with 413 PAYLOAD_TOO_LARGE.',
    }),
    uploadsPerMinute: t.int({ description: 'Uploads per minute per credential (the `upload` rate budget, shared with POST /api/storage/upload).' }),
    fileTypes: t.field({
      type: [FileTypeEnum],
      ...deprecated({ reason: 'Use formats { fileType }: the same types, with their columns.', since: '2026-11-27', sunset: '2027-05-31' }),
    }),
    formats: t.field({ type: [UploadFormat] }),
  }),
});

const UPLOAD_FORMATS = FILE_TYPES.map((fileType) => ({ fileType, columns: COLUMN_SETS[fileType] }));

builder.queryFields((t) => ({
  uploadLimits: t.withAuth({ authenticated: true }).field({
    type: UploadLimits,
    description: 'The upload size limit, rate budget and accepted file types. Any signed-in caller.',
    resolve: (_parent, _args, ctx) => ({
      maxBytes: ctx.services.config.storage.maxUploadBytes,
      uploadsPerMinute: ctx.services.config.rateLimits.uploadPerMinute,
      fileTypes: UPLOAD_FORMATS.map((format) => format.fileType),
      formats: UPLOAD_FORMATS.map((format) => ({
        fileType: format.fileType,
        requiredColumns: [...format.columns.required],
        optionalColumns: [...format.columns.optional],
      })),
    }),
  }),
  files: t.withAuth({ scope: 'read:pnl' }).prismaConnection({
    type: 'UploadedFile',
    pageSize: PAGE_SIZES.files,
    cursor: 'id',
    description: "An organization's uploaded files, newest first. Needs membership of the organization.",
    defaultSize: PAGE_SIZES.files.first,
    maxSize: PAGE_SIZES.files.max,
    args: {
      orgId: t.arg({ type: 'UUID', required: true }),
      status: t.arg({ type: FileStatusEnum, required: false }),
    },
    resolve: async (query, _parent, args, ctx, info) => {
      // prismaConnection clamps `first` silently; out-of-range pages are a client error (400 limit).
      forwardPage(args, info);
      return ctx.services.storage.list(await ctx.organizationIds(), { orgId: args.orgId, status: args.status }, query);
    },
  }),
  file: t.withAuth({ scope: 'read:pnl' }).prismaField({
    type: 'UploadedFile',
    nullable: true,
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (query, _parent, args, ctx) => ctx.services.storage.fileOf(await ctx.organizationIds(), args.id, query),
  }),
}));

builder.mutationField('uploadFile', (t) =>
  t.withAuth({ scope: 'write:upload' }).prismaField({
    type: 'UploadedFile',
    description: 'Upload a pnl, performance, fx or benchmark CSV (GraphQL multipart request). The file is queued for ingest.',
    rateBudget: 'upload',
    args: {
      file: t.arg({ type: 'Upload', required: true }),
      orgId: t.arg({ type: 'UUID', required: true }),
      fileType: t.arg({ type: FileTypeEnum, required: false, description: 'Detected from the header row when omitted.' }),
    },
    resolve: async (_query, _parent, args, ctx) => {
      const maxBytes = ctx.services.config.storage.maxUploadBytes;
      // The Upload promise rejects when the multipart body cannot be parsed (a malformed part
      // header, a body that ends mid-file): always the client's request, never our fault.
      const file = await Promise.resolve(args.file).catch((error: unknown) => {
        throw (
          uploadTransportError(error, maxBytes) ?? new AppError('BAD_USER_INPUT', `Malformed multipart request: ${(error as Error).message}`, { field: 'file' })
        );
      });
      try {
        return await ctx.services.storage.upload({
          uploaderId: ctx.viewer.user.id,
          memberOf: await ctx.organizationIds(),
          orgId: args.orgId,
          fileType: args.fileType ?? null,
          file,
        });
      } catch (error) {
        throw uploadTransportError(error, maxBytes) ?? error;
      }
    },
  }),
);

/**
 * graphql-upload-ts streams the file while the resolver runs and reports transport problems as
 * http-errors from the Upload promise or the file stream: 413 past the size limit, 499 when the
 * client went away, 400 for a file missing from the request. They are the client's, not ours.
 */
function uploadTransportError(error: unknown, maxBytes: number): AppError | undefined {
  if (error instanceof AppError || typeof error !== 'object' || error === null) return undefined;
  const status = (error as { status?: unknown }).status;
  if (status === 413) return tooLarge(maxBytes);
  if (status === 499) return new AppError('BAD_USER_INPUT', 'The request was aborted by the client');
  if (status === 400) return new AppError('BAD_USER_INPUT', (error as Error).message, { field: 'file' });
  return undefined;
}
