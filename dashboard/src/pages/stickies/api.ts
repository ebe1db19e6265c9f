import { gql } from 'urql';
import { PAGE_INFO_FIELDS, type PageInfo } from '../../components/pager.tsx';

export interface Sticky {
  id: string;
  content: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  version: number;
}

export type StickyAction = 'create' | 'update' | 'delete' | 'restore';

export interface StickyVersion {
  version: number;
  action: StickyAction;
  content: string;
  tags: string[];
  createdAt: string;
}

/** Schema: content is 1 to 10,000 characters (trimmed). Tags: see components/tag-input.tsx. */
export const CONTENT_MAX = 10_000;
/** Schema: the search text is at most 200 characters. */
export const SEARCH_MAX = 200;

const fields = 'id content tags createdAt updatedAt deletedAt version';

interface Connection<T> {
  edges: { node: T }[];
  pageInfo: PageInfo;
}

export interface StickiesVariables {
  search?: string;
  tags?: string[];
  trashedOnly: boolean;
  first: number;
  after: string | null;
}

export const StickiesQuery = gql<{ stickies: Connection<Sticky> }, StickiesVariables>(`
  query Stickies($search: String, $tags: [String!], $trashedOnly: Boolean, $first: Int, $after: String) {
    stickies(search: $search, tags: $tags, trashedOnly: $trashedOnly, first: $first, after: $after) {
      edges { node { ${fields} } }
      ${PAGE_INFO_FIELDS}
    }
  }
`);

/** The tags in use on active stickies, most used first, to offer them as filters. */
export const StickyTagsQuery = gql<{ stickyTags: { tag: string; count: number }[] }>(`
  query StickyTags { stickyTags { tag count } }
`);

export const StickyVersionsQuery = gql<{ stickyVersions: Connection<StickyVersion> }, { id: string; first: number; after: string | null }>(`
  query StickyVersions($id: UUID!, $first: Int, $after: String) {
    stickyVersions(id: $id, first: $first, after: $after) {
      edges { node { version action content tags createdAt } }
      ${PAGE_INFO_FIELDS}
    }
  }
`);

export const CreateSticky = gql<{ createSticky: Sticky }, { input: { content: string; tags: string[] } }>(`
  mutation CreateSticky($input: CreateStickyInput!) { createSticky(input: $input) { ${fields} } }
`);

export const UpdateSticky = gql<{ updateSticky: Sticky }, { input: { id: string; content?: string; tags?: string[] } }>(`
  mutation UpdateSticky($input: UpdateStickyInput!) { updateSticky(input: $input) { ${fields} } }
`);

export const DeleteSticky = gql<{ deleteSticky: Sticky }, { id: string }>(`
  mutation DeleteSticky($id: UUID!) { deleteSticky(id: $id) { ${fields} } }
`);

export const RestoreSticky = gql<{ restoreSticky: Sticky }, { id: string }>(`
  mutation RestoreSticky($id: UUID!) { restoreSticky(id: $id) { ${fields} } }
`);

/** What is wrong with the content, in words; null when it can be sent. */
export function contentProblem(content: string): string | null {
  const length = content.trim().length;
  if (length === 0) return 'Write something: a sticky cannot be empty.';
  if (length > CONTENT_MAX) return `A sticky may be at most ${CONTENT_MAX.toLocaleString()} characters; this one has ${length.toLocaleString()}.`;
  return null;
}

/** A short excerpt that names a sticky in button labels and messages. */
export function excerpt(content: string, max = 40): string {
  const line = content.trim().replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
