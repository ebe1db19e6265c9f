// GraphQL surface of the stickies resource (docs/spec/workspace-service.md).
import { builder } from './builder.ts';
import { forwardPage, toConnection } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import { stickyCursor, versionCursor } from '../src/workspace/stickies/sticky-service.ts';
import { CACHED_READ } from './cached-read.ts';

const StickyActionEnum = builder.enumType('StickyAction', {
  description: 'What a sticky version records.',
  values: ['create', 'update', 'delete', 'restore'] as const,
});

const Sticky = builder.prismaObject('Sticky', {
  description: 'A sticky note of the signed-in user. `deletedAt` is set while it is in the trash (null when active).',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    content: t.exposeString('content'),
    tags: t.exposeStringList('tags', { description: 'Trimmed, lower-case, unique.' }),
    version: t.exposeInt('version', { description: 'Number of the newest version (1 after create).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deletedAt: t.expose('deletedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the sticky was moved to the trash; null while active. Trashed stickies are purged after STICKY_TRASH_RETENTION_DAYS.',
    }),
  }),
});

const StickyVersion = builder.prismaObject('StickyVersion', {
  description: "An immutable entry of a sticky's history: its content and tags after the action.",
  fields: (t) => ({
    version: t.exposeInt('version'),
    action: t.expose('action', { type: StickyActionEnum }),
    content: t.exposeString('content'),
    tags: t.exposeStringList('tags'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const CreateStickyInput = builder.inputType('CreateStickyInput', {
  fields: (t) => ({
    content: t.string({ required: true, description: '1 to 10,000 characters (trimmed).' }),
    tags: t.stringList({ description: 'At most 20 tags of at most 50 characters; trimmed, lower-cased, de-duplicated.' }),
  }),
});

const UpdateStickyInput = builder.inputType('UpdateStickyInput', {
  fields: (t) => ({
    id: t.field({ type: 'UUID', required: true }),
    content: t.string({ description: 'New content; leave out to keep it.' }),
    tags: t.stringList({ description: 'The new set of tags (replaces the old one; [] removes all); leave out to keep them.' }),
  }),
});

const TAGS_IN_USE_MAX = 500;

const StickyTagCount = builder.simpleObject('StickyTagCount', {
  fields: (t) => ({
    tag: t.string(),
    count: t.int({ description: 'Active stickies carrying the tag.' }),
  }),
});

builder.queryFields((t) => ({
  stickies: t.withAuth({ scope: 'read:workspace' }).connection({
    extensions: CACHED_READ,
    type: Sticky,
    pageSize: PAGE_SIZES.stickies,
    description: `The signed-in user's stickies, most recently updated first.`,
    args: {
      tags: t.arg.stringList({ required: false, description: 'Only stickies carrying ALL of these tags.' }),
      includeDeleted: t.arg.boolean({ required: false, defaultValue: false, description: 'Include stickies in the trash.' }),
      trashedOnly: t.arg.boolean({ required: false, defaultValue: false, description: 'Only stickies in the trash (wins over includeDeleted).' }),
      search: t.arg.string({
        required: false,
        description: 'Only stickies whose content contains this text (any case) or that carry it as a tag; at most 200 characters.',
      }),
    },
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const page = await ctx.services.stickies.list(ctx.viewer.user.id, {
        tags: args.tags,
        includeDeleted: args.includeDeleted,
        trashedOnly: args.trashedOnly,
        search: args.search,
        limit,
        cursor,
      });
      return toConnection(page, stickyCursor);
    },
  }),
  stickyTags: t.withAuth({ scope: 'read:workspace' }).field({
    extensions: CACHED_READ,
    type: [StickyTagCount],
    description: `The tags on the signed-in user's active stickies, each with the number of stickies carrying it, most used first (at most ${TAGS_IN_USE_MAX}).`,
    resolve: (_parent, _args, ctx) => ctx.services.stickies.tagsInUse(ctx.viewer.user.id, TAGS_IN_USE_MAX),
  }),
  sticky: t.withAuth({ scope: 'read:workspace' }).field({
    extensions: CACHED_READ,
    type: Sticky,
    description: "One of the signed-in user's stickies, active or in the trash (NOT_FOUND otherwise).",
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: (_parent, args, ctx) => ctx.services.stickies.get(ctx.viewer.user.id, args.id),
  }),
  stickyVersions: t.withAuth({ scope: 'read:workspace' }).connection({
    extensions: CACHED_READ,
    type: StickyVersion,
    pageSize: PAGE_SIZES.stickyVersions,
    description: `A sticky's version history, newest first.`,
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const page = await ctx.services.stickies.versions(ctx.viewer.user.id, args.id, { limit, cursor });
      return toConnection(page, versionCursor);
    },
  }),
}));

builder.mutationFields((t) => ({
  createSticky: t.withAuth({ scope: 'write:workspace' }).field({
    type: Sticky,
    description: 'Creates a sticky (version 1, action create).',
    args: { input: t.arg({ type: CreateStickyInput, required: true }) },
    resolve: (_parent, { input }, ctx) => ctx.services.stickies.create(ctx.viewer.user.id, input),
  }),
  updateSticky: t.withAuth({ scope: 'write:workspace' }).field({
    type: Sticky,
    description: 'Changes content and/or tags (a new version); no change, no version. CONFLICT while the sticky is in the trash.',
    args: { input: t.arg({ type: UpdateStickyInput, required: true }) },
    resolve: (_parent, { input }, ctx) => ctx.services.stickies.update(ctx.viewer.user.id, input.id, { content: input.content, tags: input.tags }),
  }),
  deleteSticky: t.withAuth({ scope: 'write:workspace' }).field({
    type: Sticky,
    description: 'Moves a sticky to the trash (sets deletedAt; a new version). CONFLICT when it is already there.',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: (_parent, { id }, ctx) => ctx.services.stickies.delete(ctx.viewer.user.id, id),
  }),
  restoreSticky: t.withAuth({ scope: 'write:workspace' }).field({
    type: Sticky,
    description: 'Takes a sticky out of the trash (a new version). CONFLICT when it is not in the trash.',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: (_parent, { id }, ctx) => ctx.services.stickies.restore(ctx.viewer.user.id, id),
  }),
}));
