import { list, single, type RestRoute } from '../route.ts';

const STICKY_FIELDS = 'id content tags version createdAt updatedAt deletedAt';
const VERSION_FIELDS = 'version action content tags createdAt';

/**
 * docs/spec/workspace-service.md: stickies. The trash marker is `deleted_at` (null while active).
 * Paging: `limit` (default 50, max 200) and `cursor` (the previous page's `next_cursor`).
 */
export const stickiesRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/stickies',
    summary: "The caller's stickies, most recently updated first; `tags` (comma-separated, ALL must match), `includeDeleted` (default false).",
    params: { limit: 'first', cursor: 'after', includeDeleted: 'includeDeleted' },
    operation: `query Stickies($tags: [String!], $includeDeleted: Boolean = false, $search: String, $first: Int, $after: String) {
      stickies(tags: $tags, includeDeleted: $includeDeleted, search: $search, first: $first, after: $after) {
        edges { node { ${STICKY_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('stickies'),
  },
  {
    method: 'POST',
    path: '/api/stickies',
    summary: 'Create a sticky (`content` required, 1-10,000 characters; `tags` optional): 201 with the record.',
    body: 'json',
    status: 201,
    operation: `mutation CreateSticky($content: String!, $tags: [String!]) {
      createSticky(input: { content: $content, tags: $tags }) { ${STICKY_FIELDS} } }`,
    respond: single('createSticky'),
  },
  {
    method: 'GET',
    path: '/api/stickies/:id',
    summary: 'One sticky, active or in the trash.',
    operation: `query Sticky($id: UUID!) { sticky(id: $id) { ${STICKY_FIELDS} } }`,
    respond: single('sticky'),
  },
  {
    method: 'PATCH',
    path: '/api/stickies/:id',
    summary: 'Change `content` and/or `tags` (a new version; no change, no version); 409 while in the trash.',
    body: 'json',
    operation: `mutation UpdateSticky($id: UUID!, $content: String, $tags: [String!]) {
      updateSticky(input: { id: $id, content: $content, tags: $tags }) { ${STICKY_FIELDS} } }`,
    respond: single('updateSticky'),
  },
  {
    method: 'DELETE',
    path: '/api/stickies/:id',
    summary: 'Move a sticky to the trash (soft delete): 200 with the record; 409 when already there.',
    operation: `mutation DeleteSticky($id: UUID!) { deleteSticky(id: $id) { ${STICKY_FIELDS} } }`,
    respond: single('deleteSticky'),
  },
  {
    method: 'POST',
    path: '/api/stickies/:id/restore',
    summary: 'Take a sticky out of the trash: 200 with the record; 409 when it is not in the trash.',
    operation: `mutation RestoreSticky($id: UUID!) { restoreSticky(id: $id) { ${STICKY_FIELDS} } }`,
    respond: single('restoreSticky'),
  },
  {
    method: 'GET',
    path: '/api/stickies/:id/versions',
    summary: "A sticky's version history, newest first.",
    params: { limit: 'first', cursor: 'after' },
    operation: `query StickyVersions($id: UUID!, $first: Int, $after: String) {
      stickyVersions(id: $id, first: $first, after: $after) {
        edges { node { ${VERSION_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('stickyVersions'),
  },
];
