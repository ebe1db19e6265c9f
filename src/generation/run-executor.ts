/**
 * Executes a generation run (called by the generation worker for a claimed job):
 *
 *   run started -> every agent queued -> collector -> analysts (in parallel) -> writer -> editor -> final event
 *
 * What a failure does (docs/subscriptions.md, "Summary generation"):
 * - collector fails: the run fails (a summary that silently misses a source would mislead);
 * - an analyst fails: its section is left out, the run completes `degraded`; all analysts fail: the run fails;
 * - the writer's model fails: the extractive summariser writes the summary instead (degraded);
 * - the editor fails: the summary is kept unchecked (degraded);
 * - cancel by the owner: running agents report `failed` ("Cancelled"), the run ends `cancelled`
 *   (told through the pub/sub at once; the cancel flag is also read between stages and every CANCEL_POLL_MS);
 * - the service shuts down mid-run: the run ends `failed` with a message saying so.
 */
import type { Logger } from '../log.ts';
import { snakeKeys } from '../util/snake-case.ts';
import type { PubSub } from '../pubsub/pubsub.ts';
import type { ChatProvider } from '../workspace/chat/types.ts';
import { runAgent, RunStopped, type AgentResult, type AgentWork, type Emit } from './agent-runner.ts';
import type { WorkspaceCollector } from './collector.ts';
import { analyze } from './analysts.ts';
import { plural } from '../util/plural.ts';
import { buildWriterPrompt, composeExtractiveSummary, numberReferences, renderReferences, renumberCitations } from './compose.ts';
import { reviewCoverage } from './editor.ts';
import type { ProgressHub } from './progress-hub.ts';
import { endRun, type RunEnding } from './end-run.ts';
import { isFinalState, RUN_AGENT, type GenerationRunRecord, type RunStore, type RunUpdate } from './run-store.ts';
import {
  ANALYST_NAMES,
  ANALYST_SOURCES,
  type Analysis,
  type AnalystName,
  type CollectedWorkspace,
  type GenerationOptions,
  type WrittenSummary,
} from './types.ts';

/** How often a running run reads its cancel flag, in case the cancel message was lost. */
const CANCEL_POLL_MS = 2000;

export function controlChannel(runId: string): string {
  return `generation:${runId}:control`;
}

/** The agents of a run, in the order they run (analysts only for the requested sources). */
export function agentPlan(options: GenerationOptions): string[] {
  const analysts = ANALYST_NAMES.filter((name) => ANALYST_SOURCES[name].some((source) => options.sources.includes(source)));
  return ['collector', ...analysts, 'writer', 'editor'];
}

export interface RunExecutorDeps {
  store: RunStore;
  hub: ProgressHub;
  pubsub: PubSub;
  collector: WorkspaceCollector;
  /** The OpenAI-compatible model (CHAT_API_URL), or null for the extractive summariser. */
  model: ChatProvider | null;
  agentTimeoutMs: number;
  stepDelayMs: number;
  log: Logger;
}

/** The run's state when its stream ends, and why (endRun adds run_id, failed agents and duration). */
type Ending = Omit<RunEnding, 'durationMs'>;

/** The event log was closed under us (cancelled while queued, failed by the stale sweep). */
class RunClosed extends Error {}

export class RunExecutor {
  constructor(private readonly deps: RunExecutorDeps) {}

  async execute(runId: string, workerSignal: AbortSignal): Promise<void> {
    const run = await this.deps.store.get(runId);
    if (!run || isFinalState(run.state)) return;
    const log = this.deps.log.child({ runId });
    const controller = new AbortController();
    const onShutdown = () => controller.abort(new RunStopped('shutdown'));
    workerSignal.addEventListener('abort', onShutdown, { once: true });
    const unsubscribe = await this.deps.pubsub.subscribe(controlChannel(runId), () => controller.abort(new RunStopped('cancelled')));
    // The cancel message is a prompt; the flag in the database is the truth (a message can be lost).
    const cancelPoll = setInterval(() => {
      this.deps.store.get(runId).then(
        (current) => current?.cancelRequestedAt && controller.abort(new RunStopped('cancelled')),
        (error: unknown) => log.warn({ err: error }, 'could not check for a cancel request'),
      );
    }, CANCEL_POLL_MS);
    cancelPoll.unref();
    const failedAgents = new Set<string>();
    const emit: Emit = async (agent, status, progress, message, data = {}) => {
      if (status === 'failed') failedAgents.add(agent);
      await this.append(runId, { agent, status, progress, message, data });
    };
    const started = Date.now();
    try {
      if (run.cancelRequestedAt) controller.abort(new RunStopped('cancelled'));
      else
        await this.append(
          runId,
          { agent: RUN_AGENT, status: 'started', progress: 0, message: 'Run started', data: { run_id: runId } },
          { state: 'running', startedAt: 'now' },
        );
      const checkCancel = async () => {
        if ((await this.deps.store.get(runId))?.cancelRequestedAt) controller.abort(new RunStopped('cancelled'));
        controller.signal.throwIfAborted();
      };
      const ending = controller.signal.aborted ? stoppedEnding(controller.signal.reason) : await this.stages(run, emit, controller.signal, checkCancel, log);
      await this.finish(runId, ending, started, failedAgents);
    } catch (error) {
      if (error instanceof RunClosed) return;
      const ending = error instanceof RunStopped ? stoppedEnding(error) : unexpectedEnding(error, log);
      await this.finish(runId, ending, started, failedAgents).catch((finishError: unknown) => {
        if (!(finishError instanceof RunClosed)) throw finishError;
      });
    } finally {
      clearInterval(cancelPoll);
      workerSignal.removeEventListener('abort', onShutdown);
      await unsubscribe();
    }
  }

  /** The agents in order; `checkCancel` (between stages) throws RunStopped when the owner cancelled. */
  private async stages(run: GenerationRunRecord, emit: Emit, signal: AbortSignal, checkCancel: () => Promise<void>, log: Logger): Promise<Ending> {
    const options = run.options;
    const plan = agentPlan(options);
    for (const agent of plan) await emit(agent, 'queued', 0, `Waiting: ${AGENT_ROLES[agent] ?? agent}`);
    const runnerOptions = {
      emit,
      runSignal: signal,
      timeoutMs: this.deps.agentTimeoutMs,
      stepDelayMs: this.deps.stepDelayMs,
      describeUnexpected: (agent: string, error: unknown) => {
        log.error({ err: error, agent }, 'generation agent failed');
        return `Unexpected error in the ${agent} agent (see the service log for run ${run.id})`;
      },
    };
    const now = new Date();
    const failedAgents: string[] = [];

    const collected = await runAgent(
      'collector',
      `Collecting your records from the last ${plural(options.days, 'day')}`,
      (report, agentSignal) => this.deps.collector.collect(run.userId, options, now, report, agentSignal),
      runnerOptions,
    );
    if (!collected.ok) return failedEnding(`The collector failed: ${collected.error}`, ['collector']);

    await checkCancel();
    const analysts = plan.filter((agent): agent is AnalystName => (ANALYST_NAMES as readonly string[]).includes(agent));
    // allSettled, not all: when the run stops, every analyst must report its own `failed` before the run's last event closes the log.
    const settled = await Promise.allSettled(
      analysts.map((name) =>
        runAgent(name, `Analysing ${ANALYST_SOURCES[name].join(' and ')}`, analystWork(name, collected.value, options, now), runnerOptions),
      ),
    );
    const results: AgentResult<Analysis>[] = [];
    for (const outcome of settled) {
      if (outcome.status === 'rejected') throw outcome.reason;
      results.push(outcome.value);
    }
    const analyses = results.flatMap((result, index) => {
      if (result.ok) return [result.value];
      failedAgents.push(analysts[index]);
      return [];
    });
    await checkCancel();
    if (analyses.length === 0) return failedEnding('Every analyst failed', failedAgents);

    let written = await runAgent(
      'writer',
      this.deps.model ? 'Writing the summary with the configured model' : 'Writing the summary with the extractive summariser',
      this.writerWork(run.userId, analyses, collected.value, options, now),
      runnerOptions,
    );
    if (!written.ok) {
      failedAgents.push('writer');
      if (!this.deps.model) return failedEnding(`The writer failed: ${written.error}`, failedAgents);
      // The model failed: the offline summariser still gives the user a summary.
      written = { ok: true, value: composeExtractiveSummary(analyses, collected.value, { length: options.length, now }) };
    }
    await checkCancel();

    const summary = written.value;
    const editorStart = failedAgents.includes('writer')
      ? 'Checking the extractive summary written after the model failed'
      : 'Checking the summary covers what the analysts found';
    const edited = await runAgent(
      'editor',
      editorStart,
      async (report) => {
        await report(30, `Checking ${analyses.length} analyses against the summary`);
        const review = reviewCoverage(summary.markdown, summary.references, analyses, { length: options.length });
        return {
          value: { ...summary, markdown: review.markdown, references: review.references },
          message: review.missing.length === 0 ? coveredMessage(review.checked) : `Added ${plural(review.missing.length, 'missing finding')} to the summary`,
          data: { checked: review.checked, covered: review.covered, added: review.missing },
        };
      },
      runnerOptions,
    );
    if (!edited.ok) failedAgents.push('editor');
    const final = edited.ok ? edited.value : summary;
    return completedEnding(final, failedAgents);
  }

  private writerWork(userId: string, analyses: Analysis[], collected: CollectedWorkspace, options: GenerationOptions, now: Date): AgentWork<WrittenSummary> {
    const model = this.deps.model;
    return async (report) => {
      if (!model) {
        await report(40, 'Ranking sentences across the findings');
        const summary = composeExtractiveSummary(analyses, collected, { length: options.length, now });
        return {
          value: summary,
          message: `Summary written (${summary.markdown.length} characters, ${summary.references.length} references)`,
          data: { provider: summary.provider, characters: summary.markdown.length, references: summary.references.length },
        };
      }
      const messages = buildWriterPrompt(analyses, collected, { length: options.length, now });
      await report(20, 'Asking the model');
      const reply = await model.reply({ userId, messages });
      // The model cites the prompt's numbers; the stored summary numbers its citations 1, 2, 3...
      const { markdown, references } = renumberCitations(reply, numberReferences(analyses));
      const list = renderReferences(references);
      const summary: WrittenSummary = { markdown: list ? `${markdown.trim()}\n\n${list}\n` : markdown.trim(), references, provider: 'openai' };
      return {
        value: summary,
        message: `Summary written by the model (${summary.markdown.length} characters)`,
        data: { provider: 'openai', characters: summary.markdown.length, references: references.length },
      };
    };
  }

  private async append(runId: string, event: Parameters<RunStore['append']>[1], update?: RunUpdate): Promise<void> {
    // `data` keys are snake_case on every front, whatever an agent wrote.
    const stored = await this.deps.store.append(runId, { ...event, data: snakeKeys(event.data) as Record<string, unknown> }, update);
    if (!stored) throw new RunClosed();
    await this.deps.hub.publish(stored).catch((error: unknown) => this.deps.log.warn({ err: error, runId }, 'could not publish a generation event'));
  }

  /** The final state and event (endRun); the failed agents are the ending's, or every agent that reported `failed`. */
  private async finish(runId: string, ending: Ending, started: number, failedAgents: ReadonlySet<string>): Promise<void> {
    const { store, hub, log } = this.deps;
    await endRun({ store, hub, log }, runId, { ...ending, failedAgents: ending.failedAgents ?? [...failedAgents], durationMs: Date.now() - started });
  }
}

const AGENT_ROLES: Record<string, string> = {
  collector: 'gathers your recent stickies, links, transcripts, tasks and news',
  notes: 'analyses stickies and links',
  meetings: 'analyses meeting transcripts',
  tasks: 'analyses tasks',
  news: 'analyses news',
  writer: 'composes the summary',
  editor: 'checks the summary covers the findings',
};

function analystWork(name: AnalystName, collected: CollectedWorkspace, options: GenerationOptions, now: Date): AgentWork<Analysis> {
  return async (report) => {
    const analysis = await analyze(name, collected, { now, length: options.length, report });
    return {
      value: analysis,
      message: plural(analysis.findings.length, 'finding'),
      data: { findings: analysis.findings.length, key_terms: analysis.keyTerms, metrics: analysis.metrics },
    };
  };
}

/** "The summary covers the key finding" (1), "... all 3 key findings" (3), "No key findings to check" (0). */
function coveredMessage(checked: number): string {
  if (checked === 0) return 'There were no key findings to check';
  return checked === 1 ? 'The summary covers the 1 key finding' : `The summary covers all ${checked} key findings`;
}

function completedEnding(summary: WrittenSummary, failedAgents: string[]): Ending {
  const degraded = failedAgents.length > 0;
  return {
    state: 'completed',
    message: degraded ? `Summary ready (degraded: ${failedAgents.join(', ')} failed)` : 'Summary ready',
    update: { summary: summary.markdown, references: summary.references, summaryProvider: summary.provider },
    failedAgents,
    data: { degraded, summary_provider: summary.provider, summary: summary.markdown, references: summary.references },
  };
}

function failedEnding(error: string, failedAgents: string[]): Ending {
  return { state: 'failed', message: `Generation failed: ${error}`, update: { error }, failedAgents, data: { error } };
}

function stoppedEnding(reason: unknown): Ending {
  const stopped = reason instanceof RunStopped ? reason : new RunStopped('shutdown');
  const state = stopped.reason === 'cancelled' ? 'cancelled' : 'failed';
  return {
    state,
    message: stopped.reason === 'cancelled' ? 'Generation cancelled by its owner' : 'Generation interrupted: the service shut down; start a new run',
    update: { error: stopped.message },
    data: { error: stopped.message, reason: stopped.reason },
  };
}

function unexpectedEnding(error: unknown, log: Logger): Ending {
  log.error({ err: error }, 'generation run failed');
  return {
    state: 'failed',
    message: 'Generation failed: unexpected error',
    update: { error: 'Unexpected error (see the service log)' },
    data: { error: 'Unexpected error' },
  };
}
