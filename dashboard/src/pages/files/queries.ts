import { gql } from 'urql';
import { PAGE_INFO_FIELDS, type PageInfo } from '../../components/pager.tsx';

export type FileType = 'pnl' | 'performance';
export type FileStatus = 'uploaded' | 'processing' | 'processed' | 'failed';
export const FILE_STATUSES: FileStatus[] = ['uploaded', 'processing', 'processed', 'failed'];

/** Statuses that will still change: while a listed file has one, the list polls. */
export const IN_PROGRESS: ReadonlySet<FileStatus> = new Set(['uploaded', 'processing']);

export interface UploadFormat {
  fileType: FileType;
  requiredColumns: string[];
  optionalColumns: string[];
}

export interface UploadLimits {
  maxBytes: number;
  uploadsPerMinute: number;
  fileTypes: FileType[];
  formats: UploadFormat[];
}

export const UploadLimitsQuery = gql<{ uploadLimits: UploadLimits }>(`
  query UploadLimits {
    uploadLimits { maxBytes uploadsPerMinute fileTypes formats { fileType requiredColumns optionalColumns } }
  }
`);

export interface UploadedFile {
  id: string;
  fileName: string;
  fileType: FileType;
  sizeBytes: number;
  status: FileStatus;
  statusDetail: string | null;
  rowCount: number | null;
  errorCount: number;
  /** rows of a processed file that loaded but count in no return */
  warningCount: number;
  createdAt: string;
  processedAt: string | null;
}

const FILE_FIELDS = 'id fileName fileType sizeBytes status statusDetail rowCount errorCount warningCount createdAt processedAt';

export interface FilesVariables {
  orgId: string;
  status: FileStatus | null;
  first: number;
  after: string | null;
}

export const FilesQuery = gql<{ files: { edges: { node: UploadedFile }[]; pageInfo: PageInfo } }, FilesVariables>(`
  query Files($orgId: UUID!, $status: FileStatus, $first: Int, $after: String) {
    files(orgId: $orgId, status: $status, first: $first, after: $after) {
      edges { node { ${FILE_FIELDS} } }
      ${PAGE_INFO_FIELDS}
    }
  }
`);

export interface RowError {
  line: number;
  column: string | null;
  message: string;
}

/** How many row errors one expansion shows; the service stores at most 1000 per file. */
export const ROW_ERRORS_SHOWN = 200;

export const RowErrorsQuery = gql<{ file: { id: string; errorCount: number; rowErrors: RowError[] } | null }, { id: string; first: number }>(`
  query FileRowErrors($id: UUID!, $first: Int) {
    file(id: $id) { id errorCount rowErrors(first: $first) { line column message } }
  }
`);

export const RowWarningsQuery = gql<{ file: { id: string; warningCount: number; rowWarnings: RowError[] } | null }, { id: string; first: number }>(`
  query FileRowWarnings($id: UUID!, $first: Int) {
    file(id: $id) { id warningCount rowWarnings(first: $first) { line column message } }
  }
`);

/** Sent with uploadOperation() as a GraphQL multipart request (not through urql: XHR reports progress). */
export const UPLOAD_MUTATION = `mutation UploadFile($file: Upload!, $orgId: UUID!, $fileType: FileType) {
  uploadFile(file: $file, orgId: $orgId, fileType: $fileType) { ${FILE_FIELDS} }
}`;
