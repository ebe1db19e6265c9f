// GraphQL surface of summary generation (docs/spec/workspace-service.md, GET /api/generate).
import { builder } from './builder.ts';
import { AppError } from '../src/errors.ts';
import { forwardPage } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import { mapAsyncIterator } from '../src/util/async-iterator.ts';
import { AGENT_STATUSES, FINAL_RUN_STATES, RUN_STATES, type GenerationEventRecord } from '../src/generation/run-store.ts';
import { GENERATION_LIMITS } from '../src/generation/generation-service.ts';
import type { ProgressItem } from '../src/generation/progress-hub.ts';
import { GENERATION_SOURCES, SUMMARY_LENGTHS, type GenerationOptions, type SourceReference } from '../src/generation/types.ts';

const RunStateEnum = builder.enumType('GenerationRunState', { values: RUN_STATES });
const AgentStatusEnum = builder.enumType('GenerationAgentStatus', { values: AGENT_STATUSES });
const SourceEnum = builder.enumType('GenerationSource', { values: GENERATION_SOURCES });
const LengthEnum = builder.enumType('SummaryLength', { values: SUMMARY_LENGTHS });
const ReferenceKindEnum = builder.enumType('GenerationReferenceKind', { values: ['sticky', 'link', 'transcript', 'task', 'news'] as const });

const GenerationEvent = builder.objectRef<GenerationEventRecord>('GenerationEvent').implement({
  description: 'One progress event of a run: the payload of GET /api/generate (`agent`, `status`, `progress`, `message`, `data`) with its sequence number.',
  fields: (t) => ({
    runId: t.exposeString('runId'),
    sequence: t.exposeInt('sequence', { description: '1, 2, 3... in the order stored; the `id:` of the REST event and the cursor to resume after.' }),
    agent: t.exposeString('agent', { description: '`run` for run-level events, else collector, notes, meetings, tasks, news, writer or editor.' }),
    status: t.field({ type: AgentStatusEnum, resolve: (event) => event.status }),
    progress: t.exposeInt('progress', { description: '0 to 100, never decreasing for an agent.' }),
    message: t.exposeString('message'),
    data: t.field({ type: 'JSON', description: 'Agent-specific details (snake_case keys, the same object on every front).', resolve: (event) => event.data }),
    createdAt: t.field({ type: 'DateTime', resolve: (event) => event.createdAt }),
  }),
});

interface HeartbeatShape {
  runId: string;
  at: Date;
  lastSequence: number;
}

const GenerationHeartbeat = builder.objectRef<HeartbeatShape>('GenerationHeartbeat').implement({
  description: 'Sent at every GENERATION_HEARTBEAT interval while following: the connection is alive; lastSequence says how far the run has got.',
  fields: (t) => ({
    runId: t.exposeString('runId'),
    at: t.field({ type: 'DateTime', resolve: (beat) => beat.at }),
    lastSequence: t.exposeInt('lastSequence', { description: 'The newest event of the run so far.' }),
  }),
});

const GenerationProgress = builder.unionType('GenerationProgress', {
  types: [GenerationEvent, GenerationHeartbeat],
  resolveType: (value) => ('sequence' in value ? GenerationEvent : GenerationHeartbeat),
});

const GenerationOptionsRef = builder.objectRef<GenerationOptions>('GenerationOptions').implement({
  fields: (t) => ({
    days: t.exposeInt('days'),
    sources: t.field({ type: [SourceEnum], resolve: (options) => options.sources }),
    length: t.field({ type: LengthEnum, resolve: (options) => options.length }),
  }),
});

const GenerationReference = builder.objectRef<SourceReference>('GenerationReference').implement({
  description: 'A record the summary cites: `[n]` in the markdown is the n-th reference.',
  fields: (t) => ({
    kind: t.field({ type: ReferenceKindEnum, resolve: (ref) => ref.kind }),
    id: t.exposeString('id'),
    title: t.exposeString('title'),
  }),
});

interface AgentState {
  agent: string;
  status: GenerationEventRecord['status'];
  progress: number;
  message: string;
  updatedAt: Date;
}

const GenerationAgentState = builder.objectRef<AgentState>('GenerationAgentState').implement({
  description: "An agent's latest event.",
  fields: (t) => ({
    agent: t.exposeString('agent'),
    status: t.field({ type: AgentStatusEnum, resolve: (state) => state.status }),
    progress: t.exposeInt('progress'),
    message: t.exposeString('message'),
    updatedAt: t.field({ type: 'DateTime', resolve: (state) => state.updatedAt }),
  }),
});

builder.prismaObject('GenerationRun', {
  description: 'A summary generation of the signed-in user.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    state: t.field({ type: RunStateEnum, resolve: (run) => run.state }),
    options: t.field({ type: GenerationOptionsRef, resolve: (run) => run.options as unknown as GenerationOptions }),
    summary: t.exposeString('summary', { nullable: true, description: 'Markdown with [n] references; set when the run completes.' }),
    references: t.field({ type: [GenerationReference], resolve: (run) => (run.references ?? []) as unknown as SourceReference[] }),
    summaryProvider: t.exposeString('summaryProvider', {
      nullable: true,
      description: '`openai` (the configured model) or `offline` (the extractive summariser).',
    }),
    degraded: t.boolean({
      description: 'Completed although some agents failed (see failedAgents).',
      resolve: (run) => run.state === 'completed' && run.failedAgents.length > 0,
    }),
    failedAgents: t.exposeStringList('failedAgents'),
    error: t.exposeString('error', { nullable: true }),
    finished: t.boolean({
      description: 'The run has ended (completed, failed or cancelled): its event log is complete.',
      resolve: (run) => FINAL_RUN_STATES.includes(run.state),
    }),
    cancelRequested: t.boolean({ resolve: (run) => run.cancelRequestedAt !== null }),
    lastSequence: t.exposeInt('lastSequence', { description: 'Sequence number of the newest event.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    events: t.field({
      type: [GenerationEvent],
      pageSize: PAGE_SIZES.generationEvents,
      description: `The event log after \`after\` (default 0), oldest first.`,
      args: { after: t.arg.int({ required: false }), first: t.arg.int({ required: false }) },
      resolve: (run, args, ctx, info) => {
        const { limit } = forwardPage({ first: args.first }, info);
        const after = args.after ?? 0;
        if (!Number.isInteger(after) || after < 0) throw AppError.badInput('after', 'must be a non-negative integer');
        return ctx.services.generation.events(run.id, after, limit);
      },
    }),
    agents: t.field({
      type: [GenerationAgentState],
      description: 'Each agent of the run with its latest status, in the order they first reported.',
      resolve: async (run, _args, ctx) => latestPerAgent(await ctx.services.generation.events(run.id, 0, 10_000)),
    }),
  }),
});

function latestPerAgent(events: GenerationEventRecord[]): AgentState[] {
  const states = new Map<string, AgentState>();
  for (const event of events) {
    if (event.agent === 'run') continue;
    states.set(event.agent, { agent: event.agent, status: event.status, progress: event.progress, message: event.message, updatedAt: event.createdAt });
  }
  return [...states.values()];
}

const StartGenerationInput = builder.inputType('StartGenerationInput', {
  fields: (t) => ({
    days: t.int({
      description: `Look-back window in days, ${GENERATION_LIMITS.days.min} to ${GENERATION_LIMITS.days.max} (default ${GENERATION_LIMITS.days.default}).`,
    }),
    sources: t.field({ type: [SourceEnum], description: 'Sources to summarise (default all).' }),
    length: t.field({ type: LengthEnum, description: 'short, medium (default) or long.' }),
  }),
});

builder.queryFields((t) => ({
  generationRun: t.withAuth({ scope: 'read:workspace' }).prismaField({
    type: 'GenerationRun',
    description: "One of the signed-in user's summary generations (NOT_FOUND otherwise).",
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: (query, _parent, args, ctx) => ctx.services.generation.run(ctx.viewer.user.id, args.id, query),
  }),
  generationRuns: t.withAuth({ scope: 'read:workspace' }).prismaConnection({
    type: 'GenerationRun',
    pageSize: PAGE_SIZES.generationRuns,
    cursor: 'id',
    description: `The signed-in user's summary generations, newest first.`,
    defaultSize: PAGE_SIZES.generationRuns.first,
    maxSize: PAGE_SIZES.generationRuns.max,
    args: { state: t.arg({ type: RunStateEnum, required: false }) },
    resolve: (query, _parent, args, ctx, info) => {
      forwardPage(args, info);
      return ctx.services.generation.listRuns(ctx.viewer.user.id, { state: args.state }, query);
    },
  }),
}));

builder.mutationFields((t) => ({
  startGeneration: t.withAuth({ scope: 'write:workspace' }).prismaField({
    type: 'GenerationRun',
    description:
      'Starts a summary generation of your workspace (collector, analysts, writer, editor) as a background job and returns the queued run; ' +
      `follow it with the generationProgress subscription. CONFLICT when ${GENERATION_LIMITS.activeRunsPerUser} of your runs are already in progress.`,
    rateBudget: 'generate',
    args: { input: t.arg({ type: StartGenerationInput, required: false }) },
    resolve: async (query, _parent, { input }, ctx) => {
      const run = await ctx.services.generation.start(ctx.viewer.user.id, input ?? {});
      return ctx.services.generation.run(ctx.viewer.user.id, run.id, query);
    },
  }),
  cancelGeneration: t.withAuth({ scope: 'write:workspace' }).prismaField({
    type: 'GenerationRun',
    description:
      'Cancels one of your runs that is queued or running (CONFLICT once it has ended). Its stream ends with a `failed` event whose data.state is `cancelled`.',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (query, _parent, args, ctx) => {
      await ctx.services.generation.cancel(ctx.viewer.user.id, args.id);
      return ctx.services.generation.run(ctx.viewer.user.id, args.id, query);
    },
  }),
}));

/** A progress item as the subscription's payload: the event itself, or the heartbeat (one function for every follower). */
function progressPayload(item: ProgressItem): GenerationEventRecord | HeartbeatShape {
  return item.kind === 'event' ? item.event : item;
}

builder.subscriptionFields((t) => ({
  generationProgress: t.withAuth({ scope: 'read:workspace' }).field({
    type: GenerationProgress,
    description:
      'The events of one of your runs after `after` (a sequence number; default 0: from the start), replayed from its log, then live ones ' +
      'until the final event (agent `run`, status complete or failed), with a GenerationHeartbeat payload at every GENERATION_HEARTBEAT interval. ' +
      'To resume after a dropped connection, pass the last sequence number you received.',
    args: { runId: t.arg({ type: 'UUID', required: true }), after: t.arg.int({ required: false }) },
    subscribe: async (_parent, args, ctx) => {
      const items = await ctx.services.generation.follow(ctx.viewer.user.id, args.runId, args.after ?? 0, ctx.viewer.credential);
      // The hub's own objects, the same for every follower: each event's result is executed once per group (use-shared-execution.ts).
      return mapAsyncIterator(items, progressPayload);
    },
    resolve: (payload) => payload,
  }),
}));
