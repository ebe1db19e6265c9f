import type pg from 'pg';
import type { Intent } from '../intent.ts';
import { DASHBOARD, mdLink } from '../links.ts';
import { lacksScope, OFFLINE_LIMITS, type Answerer, type Asker } from './types.ts';
import { plural } from '../../../util/plural.ts';

type FilesIntent = Extract<Intent, { kind: 'files' }>;

/** Files listed per answer. */
const SHOWN = 5;
/** Row errors quoted per failed file. */
const ERRORS_SHOWN = 3;

interface FileRow {
  id: string;
  fileName: string;
  fileType: string;
  status: string;
  statusDetail: string | null;
  rowCount: number | null;
  errorCount: number;
  warningCount: number;
  createdAt: Date;
  orgName: string;
}

/**
 * "What did I upload last?", "Which files failed and why?": the uploaded files of the caller's
 * organizations (the same rows as GET /api/storage/files, which needs read:pnl and membership).
 */
export class FilesAnswerer implements Answerer<'files'> {
  readonly kind = 'files' as const;

  constructor(private readonly pool: pg.Pool) {}

  async answer(intent: FilesIntent, asker: Asker): Promise<string> {
    const refused = lacksScope(asker, 'read:pnl', 'uploaded files');
    if (refused) return `${refused}\n\n${OFFLINE_LIMITS}`;
    const orgIds = [...(await asker.orgIds())];
    const failed = intent.filter === 'failed';
    const { rows } = await this.pool.query<FileRow>(
      `SELECT f.id, f."fileName", f."fileType"::text AS "fileType", f.status::text AS status, f."statusDetail", f."rowCount", f."errorCount",
              f."warningCount", f."createdAt", o.name AS "orgName"
         FROM "UploadedFile" f JOIN "Organization" o ON o.id = f."orgId"
        WHERE f."orgId" = ANY($1::uuid[]) AND ($2::boolean IS FALSE OR f.status = 'failed')
        ORDER BY f."createdAt" DESC, f.id DESC LIMIT $3`,
      [orgIds, failed, SHOWN + 1],
    );
    const shown = rows.slice(0, SHOWN);
    const several = new Set(shown.map((row) => row.orgName)).size > 1;
    const lines: string[] = [];
    if (shown.length === 0) {
      lines.push(
        failed
          ? "None of your organizations' files failed."
          : 'Your organizations have no uploaded files yet. Upload a pnl or performance CSV on the Files page.',
      );
    } else {
      lines.push(failed ? `Your failed files, newest first${rows.length > SHOWN ? ` (the ${SHOWN} newest)` : ''}:` : `Your latest uploads, newest first:`);
      const errors = await this.rowErrors(shown.filter((row) => row.status === 'failed').map((row) => row.id));
      for (const file of shown) {
        const facts = [file.fileType, statusWords(file)];
        if (several) facts.push(file.orgName);
        lines.push(`- ${file.fileName} (${facts.join(', ')}), uploaded ${stamp(file.createdAt)}`);
        if (file.status === 'failed') {
          if (file.statusDetail) lines.push(`  Why: ${file.statusDetail}`);
          for (const error of errors.get(file.id) ?? []) lines.push(`  Line ${error.line}${error.column ? `, ${error.column}` : ''}: ${error.message}`);
          if (file.errorCount > ERRORS_SHOWN) lines.push(`  …and ${plural(file.errorCount - ERRORS_SHOWN, 'more row error')}`);
        }
      }
    }
    lines.push(
      '',
      `Open the ${mdLink('Files', DASHBOARD.files)} page for every file, its rows with errors and warnings, and to upload again.`,
      '',
      OFFLINE_LIMITS,
    );
    return lines.join('\n');
  }

  private async rowErrors(fileIds: string[]): Promise<Map<string, { line: number; column: string | null; message: string }[]>> {
    const byFile = new Map<string, { line: number; column: string | null; message: string }[]>();
    if (fileIds.length === 0) return byFile;
    const { rows } = await this.pool.query<{ fileId: string; line: number; column: string | null; message: string }>(
      `SELECT "fileId", line, "column", message FROM (
         SELECT e."fileId", e.line, e."column", e.message, row_number() OVER (PARTITION BY e."fileId" ORDER BY e.line, e.id) AS rank
           FROM "FileRowError" e WHERE e."fileId" = ANY($1::uuid[])) ranked
        WHERE rank <= $2 ORDER BY "fileId", line`,
      [fileIds, ERRORS_SHOWN],
    );
    for (const row of rows) byFile.set(row.fileId, [...(byFile.get(row.fileId) ?? []), row]);
    return byFile;
  }
}

function statusWords(file: FileRow): string {
  if (file.status === 'processed') {
    const parts = [`processed${file.rowCount !== null ? `, ${plural(file.rowCount, 'row')}` : ''}`];
    if (file.warningCount > 0) parts.push(plural(file.warningCount, 'warning'));
    return parts.join(', ');
  }
  if (file.status === 'failed') return `failed${file.errorCount > 0 ? `, ${plural(file.errorCount, 'row error')}` : ''}`;
  return file.status === 'uploaded' ? 'waiting to be processed' : 'being processed';
}

function stamp(date: Date): string {
  return `${new Date(date).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
