import { graphql, type ResultOf, type VariablesOf } from '../../api/graphql.ts';

const LinkFields = graphql(`fragment LinkFields on Link { id url title tags starred folderId createdAt updatedAt }`);
const FolderFields = graphql(`fragment LinkFolderFields on LinkFolder { id name linkCount }`);

export type Link = ResultOf<typeof LinkFields>;
export type LinkFolder = ResultOf<typeof FolderFields>;
export type LinkCounts = ResultOf<typeof FoldersQuery>['linkCounts'];
/** The editable fields, as CreateLinkInput takes them. */
export type LinkInput = VariablesOf<typeof CreateLink>['input'];

/** Limits from the schema's input descriptions. */
export const LIMITS = { url: 2048, title: 500, folderName: 100, search: 200 } as const;

/** The folder list's choice for "links in no folder" (folder ids are UUIDs, so it cannot clash). */
export const NO_FOLDER = 'no-folder';

export const LinksQuery = graphql(
  `
  query Links($folderId: UUID, $unfiled: Boolean, $search: String, $starred: Boolean, $first: Int, $after: String) {
    links(folderId: $folderId, unfiled: $unfiled, search: $search, starred: $starred, first: $first, after: $after) {
      edges { node { ...LinkFields } }
      pageInfo { hasNextPage endCursor }
    }
  }
`,
  [LinkFields],
);

export const FoldersQuery = graphql(`query LinkFolders { linkFolders { ...LinkFolderFields } linkCounts { total unfiled starred } }`, [FolderFields]);

export const CreateLink = graphql(`mutation CreateLink($input: CreateLinkInput!) { createLink(input: $input) { ...LinkFields } }`, [LinkFields]);

export const UpdateLink = graphql(`mutation UpdateLink($input: UpdateLinkInput!) { updateLink(input: $input) { ...LinkFields } }`, [LinkFields]);

export const DeleteLink = graphql(`mutation DeleteLink($id: UUID!) { deleteLink(id: $id) }`);

export const CreateFolder = graphql(`mutation CreateLinkFolder($input: CreateLinkFolderInput!) { createLinkFolder(input: $input) { ...LinkFolderFields } }`, [
  FolderFields,
]);

export const RenameFolder = graphql(`mutation RenameLinkFolder($input: RenameLinkFolderInput!) { renameLinkFolder(input: $input) { ...LinkFolderFields } }`, [
  FolderFields,
]);

export const DeleteFolder = graphql(`mutation DeleteLinkFolder($id: UUID!) { deleteLinkFolder(id: $id) { id movedLinks } }`);

/** What is wrong with a URL, in words (the service takes absolute http and https URLs only). */
export function urlProblem(text: string): string | null {
  const value = text.trim();
  if (!value) return 'Enter the address of the link.';
  if (value.length > LIMITS.url) return `A URL may be at most ${LIMITS.url} characters; this one has ${value.length}.`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter a full address starting with http:// or https://, e.g. https://example.com/page.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `Only http and https links can be saved, not ${url.protocol.replace(':', '')}.`;
  if (url.username || url.password) return 'The address must not contain a user name or password.';
  return null;
}

export function titleProblem(text: string): string | null {
  const length = text.trim().length;
  return length > LIMITS.title ? `A title may be at most ${LIMITS.title} characters; this one has ${length}.` : null;
}

export function folderNameProblem(text: string): string | null {
  const length = text.trim().length;
  if (length === 0) return 'Give the folder a name.';
  if (length > LIMITS.folderName) return `A folder name may be at most ${LIMITS.folderName} characters.`;
  return null;
}

/** How a link is named in labels: its title, else its host and path. */
export function linkName(link: Pick<Link, 'title' | 'url'>): string {
  if (link.title) return link.title;
  try {
    const url = new URL(link.url);
    return `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return link.url;
  }
}
