import { array, list, noContent, single, type RestRoute } from '../route.ts';

const LINK_FIELDS = 'id url title folderId tags starred createdAt updatedAt';
const FOLDER_FIELDS = 'id name linkCount createdAt updatedAt';

/**
 * docs/spec/workspace-service.md: links and folders.
 * Order matters: express matches in registration order, so the literal `/api/links/folders`
 * paths come before `/api/links/:id` (which would otherwise take `folders` as an id).
 */
export const linksRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/links/folders',
    summary: "All the caller's folders in case-insensitive name order, each with link_count.",
    operation: `query LinkFolders { linkFolders { ${FOLDER_FIELDS} } }`,
    respond: array('linkFolders'),
  },
  {
    method: 'POST',
    path: '/api/links/folders',
    summary: 'Create a folder (name 1-100 characters, unique per user case-insensitively: 409 otherwise).',
    body: 'json',
    status: 201,
    operation: `mutation CreateLinkFolder($name: String!) { createLinkFolder(input: { name: $name }) { ${FOLDER_FIELDS} } }`,
    respond: single('createLinkFolder'),
  },
  {
    method: 'PATCH',
    path: '/api/links/folders/:id',
    summary: 'Rename a folder (same rules as create).',
    body: 'json',
    operation: `mutation RenameLinkFolder($id: UUID!, $name: String!) { renameLinkFolder(input: { id: $id, name: $name }) { ${FOLDER_FIELDS} } }`,
    respond: single('renameLinkFolder'),
  },
  {
    method: 'DELETE',
    path: '/api/links/folders/:id',
    summary: 'Delete a folder: 204. Its links stay and move out of it (folder_id becomes null).',
    status: 204,
    operation: `mutation DeleteLinkFolder($id: UUID!) { deleteLinkFolder(id: $id) { id movedLinks } }`,
    respond: noContent,
  },
  {
    method: 'GET',
    path: '/api/links',
    summary: "The caller's links, newest first (folder_id, starred).",
    params: { limit: 'first', cursor: 'after' },
    operation: `query Links($folderId: UUID, $starred: Boolean, $search: String, $first: Int, $after: String) {
      links(folderId: $folderId, starred: $starred, search: $search, first: $first, after: $after) {
        edges { node { ${LINK_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('links'),
  },
  {
    method: 'POST',
    path: '/api/links',
    summary: 'Save a link (url required, http/https; title, folder_id, tags, starred).',
    body: 'json',
    status: 201,
    operation: `mutation CreateLink($url: String!, $title: String, $folderId: UUID, $tags: [String!], $starred: Boolean) {
      createLink(input: { url: $url, title: $title, folderId: $folderId, tags: $tags, starred: $starred }) { ${LINK_FIELDS} } }`,
    respond: single('createLink'),
  },
  {
    method: 'GET',
    path: '/api/links/:id',
    summary: 'One link.',
    operation: `query Link($id: UUID!) { link(id: $id) { ${LINK_FIELDS} } }`,
    respond: single('link'),
  },
  {
    method: 'PATCH',
    path: '/api/links/:id',
    summary: 'Update a link: any of url, title, folder_id (null: out of its folder), tags, starred.',
    body: 'json',
    operation: `mutation UpdateLink($id: UUID!, $url: String, $title: String, $folderId: UUID, $tags: [String!], $starred: Boolean) {
      updateLink(input: { id: $id, url: $url, title: $title, folderId: $folderId, tags: $tags, starred: $starred }) { ${LINK_FIELDS} } }`,
    respond: single('updateLink'),
  },
  {
    method: 'DELETE',
    path: '/api/links/:id',
    summary: 'Delete a link for good: 204.',
    status: 204,
    operation: `mutation DeleteLink($id: UUID!) { deleteLink(id: $id) }`,
    respond: noContent,
  },
];
