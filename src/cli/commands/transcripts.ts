/** `transcript:import`: a meeting transcript from a file, for a user. */
import fs from 'node:fs';
import path from 'node:path';
import { findUser, type Command } from '../command.ts';
import { CommandError, UsageError, describe } from '../errors.ts';
import { load } from '../load.ts';
import { output } from '../output.ts';

export const transcriptCommands: Record<string, Command> = {
  'transcript:import': {
    summary: 'import a meeting transcript for a user',
    options: {
      email: { type: 'string' },
      file: { type: 'string' },
      format: { type: 'string' },
      title: { type: 'string' },
      'occurred-at': { type: 'string' },
    },
    required: ['email', 'file'],
    async run(ctx) {
      const { values } = ctx;
      const file = String(values.file);
      const extension = path.extname(file).slice(1).toLowerCase();
      const format = (typeof values.format === 'string' ? values.format : extension).trim().toLowerCase();
      if (format !== 'vtt' && format !== 'srt' && format !== 'json') {
        throw new UsageError(
          typeof values.format === 'string'
            ? `--format must be vtt, srt or json, got ${values.format}`
            : `cannot tell the format of ${file}: pass --format vtt|srt|json`,
        );
      }
      let occurredAt: Date | null = null;
      if (typeof values['occurred-at'] === 'string') {
        occurredAt = new Date(values['occurred-at']);
        if (!/^\d{4}-\d{2}-\d{2}/.test(values['occurred-at']) || Number.isNaN(occurredAt.getTime())) {
          throw new CommandError('Invalid occurred-at: must be an ISO 8601 timestamp such as 2026-03-02T09:30:00Z');
        }
      }
      const { TRANSCRIPT_LIMITS } = await load.transcriptParsers();
      let content: string;
      try {
        const size = fs.statSync(file).size;
        if (size > TRANSCRIPT_LIMITS.contentBytes)
          throw new CommandError(`${file} is ${size} bytes; at most 5 MB (${TRANSCRIPT_LIMITS.contentBytes} bytes) can be imported`);
        content = fs.readFileSync(file, 'utf8');
      } catch (error) {
        if (error instanceof CommandError) throw error;
        throw new CommandError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? describe(error)}`);
      }
      const db = await ctx.database();
      const user = await findUser(db, String(values.email));
      const { createTranscriptService } = await load.transcripts();
      const transcript = await createTranscriptService({ config: ctx.config.transcripts, prisma: db.prisma }).import(
        user.id,
        { format, content, title: typeof values.title === 'string' ? values.title : null, occurredAt },
        { fallbackTitle: path.basename(file, path.extname(file)) },
      );
      return output(
        ctx.json,
        [
          `Imported transcript ${transcript.id} "${transcript.title}" for ${user.email}`,
          `occurred at ${transcript.occurredAt.toISOString()}; ${transcript.sentenceCount} sentences; ${transcript.durationSeconds} s`,
          `participants: ${transcript.participants.join(', ') || '-'}`,
        ],
        {
          id: transcript.id,
          title: transcript.title,
          occurredAt: transcript.occurredAt.toISOString(),
          durationSeconds: transcript.durationSeconds,
          participants: transcript.participants,
          sentenceCount: transcript.sentenceCount,
          format,
          user: { id: user.id, email: user.email },
        },
      );
    },
    audit: (data) => {
      const user = data.user as { id: string };
      return { target: { type: 'Transcript', id: String(data.id) }, subjectUserId: user.id };
    },
  },
};
