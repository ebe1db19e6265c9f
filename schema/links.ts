// GraphQL surface of the links resource (docs/spec/workspace-service.md).
import type { Link as LinkModel } from '../src/generated/prisma/client.ts';
import { builder } from './builder.ts';
import { forwardPage, toConnection } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import { linkCursor, type LinkFolderWithCount } from '../src/workspace/links/link-service.ts';
import { CACHED_READ } from './cached-read.ts';

const Link = builder.objectRef<LinkModel>('Link').implement({
  description: "A saved link of the caller's. The service stores the URL; it never fetches it.",
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    url: t.exposeString('url', { description: 'http or https, normalised (lower-case scheme and host, default port dropped, path percent-encoded).' }),
    title: t.exposeString('title', { nullable: true }),
    folderId: t.expose('folderId', { type: 'UUID', nullable: true, description: 'null: in no folder.' }),
    tags: t.exposeStringList('tags', { description: 'Trimmed, lower-case, de-duplicated.' }),
    starred: t.exposeBoolean('starred'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const LinkFolder = builder.objectRef<LinkFolderWithCount>('LinkFolder').implement({
  description: 'A folder of links. Names are unique per user, case-insensitively.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    name: t.exposeString('name'),
    linkCount: t.exposeInt('linkCount', { description: "How many of the caller's links are in the folder." }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const DeletedLinkFolder = builder.simpleObject('DeletedLinkFolder', {
  description: 'A deleted folder. Its links were kept and moved out of it (folderId null).',
  fields: (t) => ({
    id: t.field({ type: 'UUID' }),
    movedLinks: t.int({ description: 'How many links were moved out of the folder.' }),
  }),
});

const CreateLinkInput = builder.inputType('CreateLinkInput', {
  fields: (t) => ({
    url: t.string({ required: true, description: 'http or https only; at most 2048 characters.' }),
    title: t.string({ description: 'At most 500 characters; blank = none.' }),
    folderId: t.field({ type: 'UUID', description: "One of the caller's folders (else NOT_FOUND `Folder not found`)." }),
    tags: t.stringList({ description: 'At most 20 tags of at most 50 characters.' }),
    starred: t.boolean({ description: 'Default false.' }),
  }),
});

const UpdateLinkInput = builder.inputType('UpdateLinkInput', {
  description: 'Only the fields given change. `folderId: null` moves the link out of its folder; `title: null` clears it; `tags: null` clears them.',
  fields: (t) => ({
    id: t.field({ type: 'UUID', required: true }),
    url: t.string(),
    title: t.string(),
    folderId: t.field({ type: 'UUID' }),
    tags: t.stringList(),
    starred: t.boolean(),
  }),
});

const FOLDER_NAME_DESCRIPTION = '1 to 100 characters, unique per user case-insensitively.';
const CreateLinkFolderInput = builder.inputType('CreateLinkFolderInput', {
  fields: (t) => ({ name: t.string({ required: true, description: FOLDER_NAME_DESCRIPTION }) }),
});
const RenameLinkFolderInput = builder.inputType('RenameLinkFolderInput', {
  fields: (t) => ({ id: t.field({ type: 'UUID', required: true }), name: t.string({ required: true, description: FOLDER_NAME_DESCRIPTION }) }),
});

const LinkCounts = builder.simpleObject('LinkCounts', {
  fields: (t) => ({ total: t.int(), unfiled: t.int(), starred: t.int() }),
});

builder.queryFields((t) => ({
  links: t.withAuth({ scope: 'read:workspace' }).connection({
    extensions: CACHED_READ,
    type: Link,
    pageSize: PAGE_SIZES.links,
    description: `The caller's links, newest first.`,
    args: {
      folderId: t.arg({ type: 'UUID', required: false, description: "Only links in this folder (NOT_FOUND unless it is the caller's)." }),
      unfiled: t.arg.boolean({ required: false, description: 'true: only links in no folder (BAD_USER_INPUT with folderId).' }),
      starred: t.arg.boolean({ required: false, description: 'true: starred only; false: not starred only.' }),
      search: t.arg.string({
        required: false,
        description: 'Only links whose URL or title contains this text (any case) or that carry it as a tag; at most 200 characters.',
      }),
    },
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const page = await ctx.services.links.list(ctx.viewer.user.id, {
        folderId: args.folderId,
        unfiled: args.unfiled,
        starred: args.starred,
        search: args.search,
        limit,
        cursor,
      });
      return toConnection(page, linkCursor);
    },
  }),
  link: t.withAuth({ scope: 'read:workspace' }).field({
    extensions: CACHED_READ,
    type: Link,
    nullable: true,
    description: "One of the caller's links (NOT_FOUND otherwise).",
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: (_parent, args, ctx) => ctx.services.links.get(ctx.viewer.user.id, args.id),
  }),
  linkCounts: t.withAuth({ scope: 'read:workspace' }).field({
    extensions: CACHED_READ,
    type: LinkCounts,
    description: "How many links the caller has: in all, in no folder, starred (each folder's count is LinkFolder.linkCount).",
    resolve: (_parent, _args, ctx) => ctx.services.links.counts(ctx.viewer.user.id),
  }),
  linkFolders: t.withAuth({ scope: 'read:workspace' }).field({
    extensions: CACHED_READ,
    type: [LinkFolder],
    description: "All of the caller's folders in case-insensitive name order, with their link counts (at most 500 exist).",
    resolve: (_parent, _args, ctx) => ctx.services.links.listFolders(ctx.viewer.user.id),
  }),
}));

builder.mutationFields((t) => ({
  createLink: t.withAuth({ scope: 'write:workspace' }).field({
    type: Link,
    args: { input: t.arg({ type: CreateLinkInput, required: true }) },
    resolve: (_parent, { input }, ctx) => ctx.services.links.create(ctx.viewer.user.id, input),
  }),
  updateLink: t.withAuth({ scope: 'write:workspace' }).field({
    type: Link,
    args: { input: t.arg({ type: UpdateLinkInput, required: true }) },
    resolve: (_parent, { input: { id, ...changes } }, ctx) => ctx.services.links.update(ctx.viewer.user.id, id, changes),
  }),
  deleteLink: t.withAuth({ scope: 'write:workspace' }).field({
    type: 'UUID',
    description: 'Deletes the link for good (no trash); returns its id.',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, { id }, ctx) => {
      await ctx.services.links.delete(ctx.viewer.user.id, id);
      return id;
    },
  }),
  createLinkFolder: t.withAuth({ scope: 'write:workspace' }).field({
    type: LinkFolder,
    args: { input: t.arg({ type: CreateLinkFolderInput, required: true }) },
    resolve: (_parent, { input }, ctx) => ctx.services.links.createFolder(ctx.viewer.user.id, input.name),
  }),
  renameLinkFolder: t.withAuth({ scope: 'write:workspace' }).field({
    type: LinkFolder,
    args: { input: t.arg({ type: RenameLinkFolderInput, required: true }) },
    resolve: (_parent, { input }, ctx) => ctx.services.links.renameFolder(ctx.viewer.user.id, input.id, input.name),
  }),
  deleteLinkFolder: t.withAuth({ scope: 'write:workspace' }).field({
    type: DeletedLinkFolder,
    description: 'Deletes the folder; its links are kept and moved out of it (folderId becomes null).',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, { id }, ctx) => ({ id, ...(await ctx.services.links.deleteFolder(ctx.viewer.user.id, id)) }),
  }),
}));
