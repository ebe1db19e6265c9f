// GraphQL surface of the transcripts resource (docs/spec/workspace-service.md).
import { builder } from './builder.ts';
import { forwardPage, toConnection } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import type { TranscriptDetail, TranscriptSentenceRecord, TranscriptSummary } from '../src/workspace/transcripts/types.ts';
import type { TranscriptFormat } from '../src/workspace/transcripts/parsers.ts';

/** GET /api/transcripts: `limit` default 20, maximum 100. */

const TranscriptFormatEnum = builder.enumType('TranscriptFormat', {
  description:
    'Import formats: WebVTT (speakers from `<v Name>` or a `Name: ` prefix), SRT (a `Name: ` prefix), or the JSON format documented in docs/workspace.md (Transcripts, Import).',
  values: ['VTT', 'SRT', 'JSON'] as const,
});

const TranscriptSentence = builder.objectRef<TranscriptSentenceRecord>('TranscriptSentence').implement({
  description: 'One speaker-attributed sentence; times are seconds from the start of the meeting (millisecond precision).',
  fields: (t) => ({
    speaker: t.exposeString('speaker', { description: '`Unknown` when the source names no speaker.' }),
    text: t.exposeString('text'),
    startSeconds: t.exposeFloat('startSeconds'),
    endSeconds: t.exposeFloat('endSeconds', { nullable: true }),
  }),
});

const TranscriptSummaryRef = builder.objectRef<TranscriptSummary>('TranscriptSummary').implement({
  description: 'A transcript as listed, without its sentences (read them with `transcript(id)`).',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    title: t.exposeString('title'),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
    durationSeconds: t.exposeInt('durationSeconds', { description: 'The latest sentence end (or start), rounded up to a whole second.' }),
    participants: t.exposeStringList('participants'),
    sentenceCount: t.exposeInt('sentenceCount'),
  }),
});

const Transcript = builder.objectRef<TranscriptDetail>('Transcript').implement({
  description: 'A meeting transcript of the signed-in user with its sentences in spoken order.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    title: t.exposeString('title'),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
    durationSeconds: t.exposeInt('durationSeconds', { description: 'The latest sentence end (or start), rounded up to a whole second.' }),
    participants: t.exposeStringList('participants', {
      description: 'As given by the source, else the distinct speakers in order of first appearance (without `Unknown`).',
    }),
    sentenceCount: t.exposeInt('sentenceCount'),
    sentences: t.field({ type: [TranscriptSentence], resolve: (transcript) => transcript.sentences }),
  }),
});

const ImportTranscriptInput = builder.inputType('ImportTranscriptInput', {
  fields: (t) => ({
    format: t.field({ type: TranscriptFormatEnum, required: true }),
    content: t.string({
      required: true,
      description: 'The file as text: at most 5 MB (UTF-8), at most 20,000 sentences, speaker names at most 100 characters.',
    }),
    title: t.string({ description: 'At most 500 characters. Default: the WebVTT header text or JSON `title`; required when the content has none.' }),
    occurredAt: t.field({ type: 'DateTime', description: 'Default: JSON `occurred_at`, else the time of the import.' }),
  }),
});

const TranscriptSource = builder.simpleObject('TranscriptSource', {
  description: 'Where transcripts come from (TRANSCRIPT_PROVIDER) and whether they can be imported and deleted here.',
  fields: (t) => ({
    provider: t.string({ description: '`builtin` (imported into this service) or `http` (an external transcription service).' }),
    writable: t.boolean({ description: 'importTranscript and deleteTranscript work (the built-in provider only).' }),
  }),
});

builder.queryFields((t) => ({
  transcriptSource: t.withAuth({ scope: 'read:workspace' }).field({
    type: TranscriptSource,
    resolve: (_parent, _args, ctx) => ({ provider: ctx.services.transcripts.provider.kind, writable: ctx.services.transcripts.writable }),
  }),
  transcripts: t.withAuth({ scope: 'read:workspace' }).connection({
    type: TranscriptSummaryRef,
    pageSize: PAGE_SIZES.transcripts,
    description: "The caller's transcripts from the configured provider, newest first by occurredAt (first: default 20, max 100).",
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const page = await ctx.services.transcripts.list(ctx.viewer.user.id, { limit, cursor });
      return toConnection(page, (row) => row.cursor);
    },
  }),
  transcript: t.withAuth({ scope: 'read:workspace' }).field({
    type: Transcript,
    description: "One of the caller's transcripts with its sentences (NOT_FOUND `Transcript not found` otherwise).",
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: (_parent, args, ctx) => ctx.services.transcripts.get(ctx.viewer.user.id, args.id),
  }),
}));

builder.mutationFields((t) => ({
  importTranscript: t.withAuth({ scope: 'write:workspace' }).field({
    type: Transcript,
    description:
      'Imports a WebVTT, SRT or JSON transcript into the built-in provider. A parse error is BAD_USER_INPUT `Invalid content: line N: ...`. ' +
      'With TRANSCRIPT_PROVIDER=http: BAD_USER_INPUT `Transcripts are read-only with the http provider`.',
    args: { input: t.arg({ type: ImportTranscriptInput, required: true }) },
    resolve: (_parent, { input }, ctx) =>
      ctx.services.transcripts.import(ctx.viewer.user.id, {
        format: input.format.toLowerCase() as TranscriptFormat,
        content: input.content,
        title: input.title,
        occurredAt: input.occurredAt,
      }),
  }),
  deleteTranscript: t.withAuth({ scope: 'write:workspace' }).field({
    type: 'UUID',
    description:
      'Deletes an imported transcript and its sentences for good; returns its id. Built-in provider only (else BAD_USER_INPUT, as importTranscript).',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, { id }, ctx) => {
      await ctx.services.transcripts.delete(ctx.viewer.user.id, id);
      return id;
    },
  }),
}));
