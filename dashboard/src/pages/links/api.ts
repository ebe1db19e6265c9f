import { gql } from 'urql';
import { PAGE_INFO_FIELDS, type PageInfo } from '../../components/pager.tsx';

export interface Link {
  id: string;
  url: string;
  title: string | null;
  tags: string[];
  starred: boolean;
  folderId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface LinkFolder {
  id: string;
  name: string;
  linkCount: number;
}

/** Limits from the schema's input descriptions. */
export const LIMITS = { url: 2048, title: 500, folderName: 100, search: 200 } as const;

const linkFields = 'id url title tags starred folderId createdAt updatedAt';
const folderFields = 'id name linkCount';

/** The folder list's choice for "links in no folder" (folder ids are UUIDs, so it cannot clash). */
export const NO_FOLDER = 'no-folder';

export interface LinkCounts {
  total: number;
  unfiled: number;
  starred: number;
}

export interface LinksVariables {
  folderId?: string;
  unfiled?: boolean;
  search?: string;
  starred?: boolean;
  first: number;
  after: string | null;
}

export const LinksQuery = gql<{ links: { edges: { node: Link }[]; pageInfo: PageInfo } }, LinksVariables>(`
  query Links($folderId: UUID, $unfiled: Boolean, $search: String, $starred: Boolean, $first: Int, $after: String) {
    links(folderId: $folderId, unfiled: $unfiled, search: $search, starred: $starred, first: $first, after: $after) {
      edges { node { ${linkFields} } }
      ${PAGE_INFO_FIELDS}
    }
  }
`);

export const FoldersQuery = gql<{ linkFolders: LinkFolder[]; linkCounts: LinkCounts }>(
  `query LinkFolders { linkFolders { ${folderFields} } linkCounts { total unfiled starred } }`,
);

export interface LinkInput {
  url: string;
  title: string | null;
  tags: string[];
  folderId: string | null;
  starred?: boolean;
}

export const CreateLink = gql<{ createLink: Link }, { input: LinkInput }>(`
  mutation CreateLink($input: CreateLinkInput!) { createLink(input: $input) { ${linkFields} } }
`);

export const UpdateLink = gql<{ updateLink: Link }, { input: Partial<LinkInput> & { id: string } }>(`
  mutation UpdateLink($input: UpdateLinkInput!) { updateLink(input: $input) { ${linkFields} } }
`);

export const DeleteLink = gql<{ deleteLink: string }, { id: string }>(`mutation DeleteLink($id: UUID!) { deleteLink(id: $id) }`);

export const CreateFolder = gql<{ createLinkFolder: LinkFolder }, { input: { name: string } }>(`
  mutation CreateLinkFolder($input: CreateLinkFolderInput!) { createLinkFolder(input: $input) { ${folderFields} } }
`);

export const RenameFolder = gql<{ renameLinkFolder: LinkFolder }, { input: { id: string; name: string } }>(`
  mutation RenameLinkFolder($input: RenameLinkFolderInput!) { renameLinkFolder(input: $input) { ${folderFields} } }
`);

export const DeleteFolder = gql<{ deleteLinkFolder: { id: string; movedLinks: number } }, { id: string }>(`
  mutation DeleteLinkFolder($id: UUID!) { deleteLinkFolder(id: $id) { id movedLinks } }
`);

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
