/**
 * Page sizes of every list, stated once. The schema puts each on its field (`pageSize`), where
 * GraphQL descriptions, the REST `limit` and the MCP tools' `first` read it.
 */
export interface PageSize {
  /** The page size when the client gives none. */
  first: number;
  /** The largest page a client may ask for. */
  max: number;
}

export const PAGE_SIZES = {
  stickies: { first: 50, max: 200 },
  stickyVersions: { first: 50, max: 200 },
  links: { first: 50, max: 200 },
  tasks: { first: 50, max: 200 },
  news: { first: 20, max: 100 },
  conversations: { first: 20, max: 100 },
  transcripts: { first: 20, max: 100 },
  files: { first: 50, max: 500 },
  generationRuns: { first: 20, max: 100 },
  generationEvents: { first: 500, max: 1000 },
  returnComparison: { first: 50, max: 500 },
  cashTransactions: { first: 100, max: 1000 },
} as const satisfies Record<string, PageSize>;
