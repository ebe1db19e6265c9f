import { graphql, type ResultOf } from '../../api/graphql.ts';

export type UploadLimits = ResultOf<typeof UploadLimitsQuery>['uploadLimits'];
export type UploadFormat = UploadLimits['formats'][number];
export type FileType = UploadFormat['fileType'];
export type UploadedFile = ResultOf<typeof FileFields>;
export type FileStatus = UploadedFile['status'];
export const FILE_STATUSES: FileStatus[] = ['uploaded', 'processing', 'processed', 'failed'];

/** Statuses that will still change: while a listed file has one, the list polls. */
export const IN_PROGRESS: ReadonlySet<FileStatus> = new Set(['uploaded', 'processing']);

export const UploadLimitsQuery = graphql(`
  query UploadLimits {
    uploadLimits { maxBytes uploadsPerMinute formats { fileType requiredColumns optionalColumns } }
  }
`);

/** warningCount: rows of a processed file that loaded but count in no return. */
const FileFields = graphql(`
  fragment UploadedFileFields on UploadedFile {
    id fileName fileType sizeBytes status statusDetail rowCount errorCount warningCount createdAt processedAt
  }
`);

export const FilesQuery = graphql(
  `
  query Files($orgId: UUID!, $status: FileStatus, $first: Int, $after: String) {
    files(orgId: $orgId, status: $status, first: $first, after: $after) {
      edges { node { ...UploadedFileFields } }
      pageInfo { hasNextPage endCursor }
    }
  }
`,
  [FileFields],
);

/** How many row errors one expansion shows; the service stores at most 1000 per file. */
export const ROW_ERRORS_SHOWN = 200;

export const RowErrorsQuery = graphql(`
  query FileRowErrors($id: UUID!, $first: Int) {
    file(id: $id) { id errorCount rowErrors(first: $first) { line column message } }
  }
`);

export const RowWarningsQuery = graphql(`
  query FileRowWarnings($id: UUID!, $first: Int) {
    file(id: $id) { id warningCount rowWarnings(first: $first) { line column message } }
  }
`);

export type RowError = NonNullable<ResultOf<typeof RowErrorsQuery>['file']>['rowErrors'][number];

/** Sent with uploadOperation() as a GraphQL multipart request (not through urql: XHR reports progress). */
export const UploadFileMutation = graphql(
  `
  mutation UploadFile($file: Upload!, $orgId: UUID!, $fileType: FileType) {
    uploadFile(file: $file, orgId: $orgId, fileType: $fileType) { ...UploadedFileFields }
  }
`,
  [FileFields],
);
