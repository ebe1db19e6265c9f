import { graphql, type ResultOf } from '../../api/graphql.ts';

const StickyFields = graphql(`fragment StickyFields on Sticky { id content tags createdAt updatedAt deletedAt version }`);

export type Sticky = ResultOf<typeof StickyFields>;
export type StickyVersion = ResultOf<typeof StickyVersionsQuery>['stickyVersions']['edges'][number]['node'];
export type StickyAction = StickyVersion['action'];

/** Schema: content is 1 to 10,000 characters (trimmed). Tags: see components/tag-input.tsx. */
export const CONTENT_MAX = 10_000;
/** Schema: the search text is at most 200 characters. */
export const SEARCH_MAX = 200;

export const StickiesQuery = graphql(
  `
  query Stickies($search: String, $tags: [String!], $trashedOnly: Boolean, $first: Int, $after: String) {
    stickies(search: $search, tags: $tags, trashedOnly: $trashedOnly, first: $first, after: $after) {
      edges { node { ...StickyFields } }
      pageInfo { hasNextPage endCursor }
    }
  }
`,
  [StickyFields],
);

/** The tags in use on active stickies, most used first, to offer them as filters. */
export const StickyTagsQuery = graphql(`
  query StickyTags { stickyTags { tag count } }
`);

export const StickyVersionsQuery = graphql(`
  query StickyVersions($id: UUID!, $first: Int, $after: String) {
    stickyVersions(id: $id, first: $first, after: $after) {
      edges { node { version action content tags createdAt } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);

export const CreateSticky = graphql(`mutation CreateSticky($input: CreateStickyInput!) { createSticky(input: $input) { ...StickyFields } }`, [StickyFields]);

export const UpdateSticky = graphql(`mutation UpdateSticky($input: UpdateStickyInput!) { updateSticky(input: $input) { ...StickyFields } }`, [StickyFields]);

export const DeleteSticky = graphql(`mutation DeleteSticky($id: UUID!) { deleteSticky(id: $id) { ...StickyFields } }`, [StickyFields]);

export const RestoreSticky = graphql(`mutation RestoreSticky($id: UUID!) { restoreSticky(id: $id) { ...StickyFields } }`, [StickyFields]);

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
