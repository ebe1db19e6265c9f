import { plural } from '../../components/format.ts';

/** What the file list (an UploadedFile of queries.ts) announces when a file finishes ingest: "x.csv failed with 1 row error." */
export function finishedAnnouncement(file: { fileName: string; status: string; errorCount: number; warningCount: number }): string {
  if (file.status === 'failed') return `${file.fileName} failed${file.errorCount > 0 ? ` with ${plural(file.errorCount, 'row error')}` : ''}.`;
  return `${file.fileName} is ${file.status}${file.warningCount > 0 ? ` with ${plural(file.warningCount, 'warning')}` : ''}.`;
}
