/**
 * The collector agent: gathers the caller's recent records from the workspace services (so the
 * configured transcript and task providers are used, and only the caller's records are seen).
 *
 * "Recent" is the window of the run's `days`: stickies updated, links saved, meetings held and
 * news published in it; tasks that are still open (whenever created) or were updated in it.
 * Each source is capped (COLLECT_LIMITS) so a large workspace cannot make a run unbounded.
 */
import type { LinkService } from '../workspace/links/link-service.ts';
import type { NewsService } from '../workspace/news/news-service.ts';
import type { StickyService } from '../workspace/stickies/sticky-service.ts';
import type { TaskService } from '../workspace/tasks/task-service.ts';
import type { TranscriptService } from '../workspace/transcripts/transcript-service.ts';
import type { AgentOutcome } from './agent-runner.ts';
import type { CollectedWorkspace, GenerationOptions, GenerationSource } from './types.ts';

export const COLLECT_LIMITS = { stickies: 200, links: 200, transcripts: 20, tasks: 200, taskComments: 50, news: 200 } as const;
const PAGE = 100;

/** The workspace services a run reads (the process's own, wired in server/app.ts). */
export interface WorkspaceServices {
  stickies: StickyService;
  links: LinkService;
  transcripts: TranscriptService;
  tasks: TaskService;
  news: NewsService;
}
type Report = (progress: number, message: string, data?: Record<string, unknown>) => Promise<void>;

export interface WorkspaceCollector {
  collect(userId: string, options: GenerationOptions, now: Date, report: Report, signal: AbortSignal): Promise<AgentOutcome<CollectedWorkspace>>;
}

export class ServiceCollector implements WorkspaceCollector {
  constructor(private readonly services: WorkspaceServices) {}

  async collect(userId: string, options: GenerationOptions, now: Date, report: Report, signal: AbortSignal): Promise<AgentOutcome<CollectedWorkspace>> {
    const since = new Date(now.getTime() - options.days * 86_400_000);
    const collected: CollectedWorkspace = { since, until: now };
    const counts: Partial<Record<GenerationSource, number>> = {};
    const readers: Record<GenerationSource, () => Promise<number>> = {
      stickies: async () => (collected.stickies = await this.stickies(userId, since)).length,
      links: async () => (collected.links = await this.links(userId, since)).length,
      transcripts: async () => (collected.transcripts = await this.transcripts(userId, since, signal)).length,
      tasks: async () => (collected.tasks = await this.tasks(userId, since, signal)).length,
      news: async () => (collected.news = await this.news(userId, since)).length,
    };
    for (const [index, source] of options.sources.entries()) {
      signal.throwIfAborted();
      counts[source] = await readers[source]();
      await report(((index + 1) / (options.sources.length + 1)) * 100, `Found ${plural(counts[source], RECORD_NAMES[source])}`, { counts: { ...counts } });
    }
    const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
    return {
      value: collected,
      message: `Collected ${plural(total, ['record', 'records'])} from the last ${plural(options.days, ['day', 'days'])}`,
      data: { counts, total, since: since.toISOString(), until: now.toISOString() },
    };
  }

  private async stickies(userId: string, since: Date) {
    const rows = await pageWhile(
      (cursor) => this.services.stickies.list(userId, { limit: PAGE, cursor }),
      (sticky) => sticky.updatedAt >= since,
      COLLECT_LIMITS.stickies,
    );
    return rows.map(({ id, content, tags, updatedAt }) => ({ id, content, tags, updatedAt }));
  }

  private async links(userId: string, since: Date) {
    const rows = await pageWhile(
      (cursor) => this.services.links.list(userId, { limit: PAGE, cursor }),
      (link) => link.createdAt >= since,
      COLLECT_LIMITS.links,
    );
    return rows.map(({ id, url, title, tags, starred, createdAt }) => ({ id, url, title, tags, starred, createdAt }));
  }

  private async news(userId: string, since: Date) {
    const rows = await pageWhile(
      (cursor) => this.services.news.list(userId, { limit: PAGE, cursor }),
      (article) => article.publishedAt >= since,
      COLLECT_LIMITS.news,
    );
    return rows.map(({ id, title, url, source, summary, tags, publishedAt }) => ({ id, title, url, source, summary, tags, publishedAt }));
  }

  private async transcripts(userId: string, since: Date, signal: AbortSignal) {
    const recent = await pageWhile(
      (cursor) => this.services.transcripts.list(userId, { limit: PAGE, cursor: cursor ?? null }),
      (t) => t.occurredAt >= since,
      COLLECT_LIMITS.transcripts,
    );
    const details = [];
    for (const summary of recent) {
      signal.throwIfAborted();
      const detail = await this.services.transcripts.get(userId, summary.id);
      details.push({
        id: detail.id,
        title: detail.title,
        occurredAt: detail.occurredAt,
        participants: detail.participants,
        sentences: detail.sentences.map(({ speaker, text, startSeconds }) => ({ speaker, text, startSeconds: Number(startSeconds) })),
      });
    }
    return details;
  }

  private async tasks(userId: string, since: Date, signal: AbortSignal) {
    const tasks = [];
    let cursor: string | null = null;
    // Task providers do not promise an order, so read up to the cap and keep the relevant ones.
    for (let read = 0; read < COLLECT_LIMITS.tasks * 5; ) {
      signal.throwIfAborted();
      const page = await this.services.tasks.list(userId, { limit: PAGE, cursor });
      read += page.rows.length;
      for (const task of page.rows) {
        const open = task.status !== 'done' && task.status !== 'cancelled';
        if ((open || task.updatedAt >= since) && tasks.length < COLLECT_LIMITS.tasks) tasks.push(task);
      }
      if (!page.hasMore || !page.nextCursor || tasks.length >= COLLECT_LIMITS.tasks) break;
      cursor = page.nextCursor;
    }
    const withComments = [];
    for (const [index, task] of tasks.entries()) {
      // Comments only for the most recently changed tasks: each read may be a call to the PM tool.
      const comments = index < COLLECT_LIMITS.taskComments && task.updatedAt >= since ? await this.services.tasks.comments(userId, task.id) : [];
      withComments.push({
        id: task.id,
        title: task.title,
        description: task.description,
        status: task.status,
        priority: task.priority,
        assignee: task.assignee,
        dueDate: task.dueDate,
        labels: task.labels,
        updatedAt: task.updatedAt,
        comments: comments.map(({ body, createdAt }) => ({ body, createdAt })),
      });
    }
    return withComments;
  }
}

const RECORD_NAMES: Record<GenerationSource, [string, string]> = {
  stickies: ['sticky', 'stickies'],
  links: ['link', 'links'],
  transcripts: ['meeting transcript', 'meeting transcripts'],
  tasks: ['relevant task', 'relevant tasks'],
  news: ['news article', 'news articles'],
};

function plural(count: number, [one, many]: readonly [string, string]): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Pages newest-first rows while they are in the window, up to `cap`. */
async function pageWhile<T>(
  fetchPage: (cursor: string | null) => Promise<{ rows: T[]; hasMore: boolean; nextCursor: string | null }>,
  inWindow: (row: T) => boolean,
  cap: number,
): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await fetchPage(cursor);
    for (const row of page.rows) {
      if (!inWindow(row) || rows.length >= cap) return rows;
      rows.push(row);
    }
    if (!page.hasMore || !page.nextCursor) return rows;
    cursor = page.nextCursor;
  }
}
