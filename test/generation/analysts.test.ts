import { describe, expect, it } from 'vitest';
import { analyze, bucketTasks, FINDING_LIMITS, looksLikeDecision } from '../../src/generation/analysts.ts';
import type { Analysis, AnalystName, CollectedTask, CollectedWorkspace, ReportProgress } from '../../src/generation/types.ts';

const NOW = new Date('2026-11-18T10:00:00Z');
const SINCE = new Date('2026-11-11T10:00:00Z');

function task(id: string, overrides: Partial<CollectedTask> = {}): CollectedTask {
  return {
    id,
    title: `Task ${id}`,
    description: null,
    status: 'todo',
    priority: 'medium',
    assignee: null,
    dueDate: null,
    labels: [],
    updatedAt: new Date('2026-11-15T12:00:00Z'),
    comments: [],
    ...overrides,
  };
}

function workspace(): CollectedWorkspace {
  return {
    since: SINCE,
    until: NOW,
    stickies: [
      {
        id: 's1',
        content: 'Budget review: the hiring plan for Q1 needs sign-off from finance before the budget closes.',
        tags: ['Budget', 'hiring'],
        updatedAt: new Date('2026-11-17T10:00:00Z'),
      },
      { id: 's2', content: 'Budget draft for hiring is in the shared folder.', tags: ['budget'], updatedAt: new Date('2026-11-16T10:00:00Z') },
      { id: 's3', content: '- Grocery list: milk, eggs, [bread] and `butter`\nsecond line', tags: [], updatedAt: new Date('2026-11-12T10:00:00Z') },
    ],
    links: [
      { id: 'l1', url: 'https://example.com/budget', title: 'Budget template', tags: ['budget'], starred: true, createdAt: new Date('2026-11-13T00:00:00Z') },
      { id: 'l2', url: 'https://example.com/recipes', title: null, tags: [], starred: false, createdAt: new Date('2026-11-14T00:00:00Z') },
    ],
    transcripts: [
      {
        id: 't1',
        title: 'Weekly sync',
        occurredAt: new Date('2026-11-18T09:00:00Z'),
        participants: ['Dana', 'Eli'],
        sentences: [
          { speaker: 'Dana', text: 'Good morning everyone.', startSeconds: 0 },
          { speaker: 'Dana', text: 'We agreed to ship on Friday. Okay.', startSeconds: 4 },
          { speaker: 'Eli', text: 'The release notes are mostly written already.', startSeconds: 9 },
          { speaker: 'Eli', text: 'Lunch today was quite good actually.', startSeconds: 14 },
        ],
      },
      {
        id: 't2',
        title: 'Budget call',
        occurredAt: new Date('2026-11-12T15:00:00Z'),
        participants: ['Dana', 'Fay'],
        sentences: [{ speaker: 'Fay', text: 'The budget numbers look fine for the release.', startSeconds: 0 }],
      },
    ],
    tasks: [
      task('k1', { title: 'Send budget', dueDate: '2026-11-12', priority: 'high' }),
      task('k2', { title: 'Review hiring plan', dueDate: '2026-11-17', status: 'in_progress' }),
      task('k3', { title: 'Ship release', dueDate: '2026-11-18', priority: 'urgent' }),
      task('k4', { title: 'Write notes', dueDate: '2026-11-25' }),
      task('k5', { title: 'Later thing', dueDate: '2026-11-26' }),
      task('k6', { title: 'Old done thing', dueDate: '2026-11-01', status: 'done', updatedAt: new Date('2026-11-16T00:00:00Z') }),
      task('k7', { title: 'Dropped thing', dueDate: '2026-11-01', status: 'cancelled' }),
      task('k8', { title: 'Waiting on legal', status: 'blocked', priority: 'urgent' }),
    ],
    news: [
      {
        id: 'n1',
        title: 'Cat rescued from tree',
        url: 'https://n.example/1',
        source: 'AP',
        summary: null,
        tags: [],
        publishedAt: new Date('2026-11-18T08:00:00Z'),
      },
      {
        id: 'n2',
        title: 'Markets rally on budget deal',
        url: 'https://n.example/2',
        source: 'Reuters',
        summary: 'Hiring expected to rise.',
        tags: [],
        publishedAt: new Date('2026-11-15T00:00:00Z'),
      },
      {
        id: 'n3',
        title: 'Weather turns cold',
        url: 'https://n.example/3',
        source: 'Reuters',
        summary: null,
        tags: [],
        publishedAt: new Date('2026-11-11T12:00:00Z'),
      },
    ],
  };
}

interface Call {
  progress: number;
  message: string;
  data?: Record<string, unknown>;
}

async function run(
  name: AnalystName,
  collected: CollectedWorkspace,
  length: 'short' | 'medium' | 'long' = 'medium',
): Promise<{ analysis: Analysis; calls: Call[] }> {
  const calls: Call[] = [];
  const report: ReportProgress = async (progress, message, data) => {
    calls.push({ progress, message, data });
  };
  return { analysis: await analyze(name, collected, { now: NOW, length, report }), calls };
}

function expectSafeFindings(analysis: Analysis): void {
  for (const finding of analysis.findings) {
    expect(finding.text).not.toMatch(/[\n`[\]]/);
    expect(finding.text).not.toMatch(/^[#\-*]/);
    expect(finding.weight).toBeGreaterThanOrEqual(0);
    expect(finding.weight).toBeLessThanOrEqual(1);
  }
  const weights = analysis.findings.map((f) => f.weight);
  expect(weights).toEqual([...weights].sort((a, b) => b - a));
}

describe('progress reports', () => {
  it('reports at least twice, rising within 1..99, with a message and JSON counts', async () => {
    for (const name of ['notes', 'meetings', 'tasks', 'news'] as const) {
      const { calls } = await run(name, workspace());
      expect(calls.length).toBeGreaterThanOrEqual(2);
      const progress = calls.map((c) => c.progress);
      expect(progress.every((p) => p >= 1 && p <= 99)).toBe(true);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(new Set(progress).size).toBe(progress.length);
      for (const call of calls) {
        expect(call.message.length).toBeGreaterThan(0);
        expect(JSON.parse(JSON.stringify(call.data))).toEqual(call.data);
      }
    }
  });

  it('works without a report callback', async () => {
    const analysis = await analyze('tasks', workspace(), { now: NOW, length: 'short' });
    expect(analysis.metrics.tasks).toBe(8);
  });
});

describe('notes analyst', () => {
  it('counts notes and links, finds top tags, representative notes and starred links', async () => {
    const { analysis, calls } = await run('notes', workspace());
    expect(calls[0]).toEqual({ progress: 10, message: 'Reading 3 notes and 2 links', data: { notes: 3, links: 2 } });
    expect(analysis.heading).toBe('Notes and links');
    expect(analysis.metrics).toEqual({ notes: 3, links: 2, starredLinks: 1, topTags: ['budget', 'hiring'] });
    expect(analysis.findings.map((f) => f.text)).toEqual([
      'Note: Budget review: the hiring plan for Q1 needs sign-off from finance before the budget closes.',
      'Note: Budget draft for hiring is in the shared folder.',
      'Note: Grocery list: milk, eggs, bread and butter second line',
      '1 starred link: "Budget template".',
      '3 notes and 2 links in the window; most used tags: budget, hiring.',
    ]);
    expect(analysis.findings[0].references).toEqual([{ kind: 'sticky', id: 's1', title: 'Budget review: the hiring plan for Q1 needs sign-off from…' }]);
    expect(analysis.findings[2].references[0].title).toBe('Grocery list: milk, eggs, bread and butter second line');
    expect(analysis.findings[3].references).toEqual([{ kind: 'link', id: 'l1', title: 'Budget template' }]);
    expect(analysis.keyTerms[0]).toBe('budget');
    expect(analysis.keyTerms.length).toBeLessThanOrEqual(8);
    expectSafeFindings(analysis);
  });

  it('names unstarred links by title or URL when there is room', async () => {
    const { analysis } = await run('notes', workspace(), 'long');
    const saved = analysis.findings.find((f) => f.text.startsWith('1 link saved'));
    expect(saved?.text).toBe('1 link saved: "https://example.com/recipes".');
    expect(saved?.references).toEqual([{ kind: 'link', id: 'l2', title: 'https://example.com/recipes' }]);
  });

  it('bounds the findings by length and keeps the overview', async () => {
    const { analysis } = await run('notes', workspace(), 'short');
    expect(analysis.findings).toHaveLength(FINDING_LIMITS.short);
    expect(analysis.findings.at(-1)?.text).toMatch(/^3 notes and 2 links/);
  });
});

describe('blank records', () => {
  it('skips blank notes and names untitled meetings', async () => {
    const collected: CollectedWorkspace = {
      since: SINCE,
      until: NOW,
      stickies: [{ id: 'b1', content: '  \n ', tags: [], updatedAt: NOW }],
      transcripts: [
        { id: 'u1', title: '', occurredAt: NOW, participants: [], sentences: [{ speaker: '', text: 'We will send the deck tomorrow.', startSeconds: 0 }] },
      ],
    };
    const notes = (await run('notes', collected)).analysis;
    expect(notes.findings.map((f) => f.text)).toEqual(['1 note and 0 links in the window.']);
    const meetings = (await run('meetings', collected)).analysis;
    expect(meetings.findings.map((f) => f.text)).toEqual([
      'In "Untitled meeting" (Nov 18): We will send the deck tomorrow.',
      '1 meeting: "Untitled meeting" (Nov 18).',
    ]);
  });
});

describe('meetings analyst', () => {
  it('names the meeting, date and speaker, and boosts decisions', async () => {
    const { analysis } = await run('meetings', workspace());
    expect(analysis.findings[0].text).toBe('In "Weekly sync" (Nov 18), Dana: We agreed to ship on Friday.');
    expect(analysis.findings[0].references).toEqual([{ kind: 'transcript', id: 't1', title: 'Weekly sync' }]);
    expect(analysis.metrics).toEqual({ meetings: 2, sentences: 5, decisions: 1, participants: ['Dana', 'Eli', 'Fay'] });
    const overview = analysis.findings.find((f) => f.text.startsWith('2 meetings'));
    expect(overview?.text).toBe('2 meetings: "Weekly sync" (Nov 18), "Budget call" (Nov 12); participants: Dana, Eli, Fay.');
    // The decision is isolated (shares no word with the rest), so it wins on its boost alone.
    expect(analysis.findings.map((f) => f.text)).toEqual([
      'In "Weekly sync" (Nov 18), Dana: We agreed to ship on Friday.',
      'In "Weekly sync" (Nov 18), Eli: The release notes are mostly written already.',
      'In "Budget call" (Nov 12), Fay: The budget numbers look fine for the release.',
      'In "Weekly sync" (Nov 18), Dana: Good morning everyone.',
      '2 meetings: "Weekly sync" (Nov 18), "Budget call" (Nov 12); participants: Dana, Eli, Fay.',
    ]);
    expectSafeFindings(analysis);
  });

  it('recognises decision and action-item cues', () => {
    expect(looksLikeDecision('Action item: Eli sends the deck')).toBe(true);
    expect(looksLikeDecision('We need this by Friday')).toBe(true);
    expect(looksLikeDecision('Let us follow up next week')).toBe(true);
    expect(looksLikeDecision('The weather was nice')).toBe(false);
  });
});

describe('tasks analyst', () => {
  it('counts overdue and due-soon tasks against the UTC date of now', () => {
    const tasks = workspace().tasks ?? [];
    const ids = (list: CollectedTask[]) => list.map((t) => t.id);
    // 00:30 UTC on the 18th: west of UTC it is still the 17th locally, but the UTC date decides.
    const early = bucketTasks(tasks, new Date('2026-11-18T00:30:00Z'));
    expect(ids(early.overdue)).toEqual(['k1', 'k2']);
    expect(ids(early.dueSoon)).toEqual(['k3', 'k4']);
    // 23:59:59 UTC on the 17th: the task due on the 17th is not overdue yet.
    const late = bucketTasks(tasks, new Date('2026-11-17T23:59:59Z'));
    expect(ids(late.overdue)).toEqual(['k1']);
    expect(ids(late.dueSoon)).toEqual(['k2', 'k3']); // the 25th is 8 days after the 17th
    expect(ids(early.blocked)).toEqual(['k8']);
    expect(ids(early.highPriority)).toEqual(['k3', 'k1']);
    expect(ids(early.completed)).toEqual(['k6']);
  });

  it('writes findings with counts, titles and due dates', async () => {
    const { analysis } = await run('tasks', workspace(), 'long');
    expect(analysis.findings.map((f) => f.text)).toEqual([
      '2 tasks are overdue: "Send budget" (due 2026-11-12), "Review hiring plan" (due 2026-11-17).',
      '1 task is blocked: "Waiting on legal".',
      '2 urgent or high-priority tasks are open: "Ship release" (urgent), "Send budget" (high).',
      '2 tasks are due in the next 7 days: "Ship release" (due 2026-11-18), "Write notes" (due 2026-11-25).',
      '1 task was completed: "Old done thing".',
      '8 tasks in the window: 4 to do, 1 in progress, 1 blocked, 1 done, 1 cancelled.',
    ]);
    expect(analysis.findings[0].references).toEqual([
      { kind: 'task', id: 'k1', title: 'Send budget' },
      { kind: 'task', id: 'k2', title: 'Review hiring plan' },
    ]);
    expect(analysis.metrics).toMatchObject({ tasks: 8, todo: 4, overdue: 2, dueSoon: 2, blocked: 1, done: 1, cancelled: 1, highPriorityOpen: 2 });
    expectSafeFindings(analysis);
  });

  it('lists at most five tasks per finding', async () => {
    const many: CollectedWorkspace = {
      since: SINCE,
      until: NOW,
      tasks: Array.from({ length: 7 }, (_, i) => task(`o${i}`, { title: `Late ${i}`, dueDate: `2026-11-0${i + 1}` })),
    };
    const { analysis } = await run('tasks', many, 'short');
    expect(analysis.findings[0].text).toBe(
      '7 tasks are overdue: "Late 0" (due 2026-11-01), "Late 1" (due 2026-11-02), "Late 2" (due 2026-11-03), "Late 3" (due 2026-11-04), "Late 4" (due 2026-11-05) and 2 more.',
    );
    expect(analysis.findings[0].references).toHaveLength(5);
    expect(analysis.findings).toHaveLength(2);
  });
});

describe('news analyst', () => {
  it('ranks headlines related to the other sources above unrelated ones', async () => {
    const { analysis } = await run('news', workspace());
    expect(analysis.findings.map((f) => f.text)).toEqual([
      // The words it was ranked by are not shown ("related to: budget, hiring" read as noise).
      'Reuters, Nov 15: Markets rally on budget deal',
      'AP, Nov 18: Cat rescued from tree',
      'Reuters, Nov 11: Weather turns cold',
      '3 articles from 2 sources: Reuters (2), AP (1).',
    ]);
    expect(analysis.findings[0].references).toEqual([{ kind: 'news', id: 'n2', title: 'Markets rally on budget deal' }]);
    expect(analysis.metrics).toEqual({ articles: 3, sources: 2, bySource: ['Reuters: 2', 'AP: 1'] });
    expectSafeFindings(analysis);
  });

  it('shows the tags the user set on an article, and only those', async () => {
    const tagged = workspace();
    tagged.news = tagged.news!.map((article) => (article.id === 'n3' ? { ...article, tags: ['weather', 'Ops', 'weather', 'x', 'y'] } : article));
    const { analysis } = await run('news', tagged);
    expect(analysis.findings.map((f) => f.text)).toContain('Reuters, Nov 11: Weather turns cold (tags: weather, Ops, x)');
    expect(analysis.findings.map((f) => f.text)).toContain('Reuters, Nov 15: Markets rally on budget deal');
    expect(analysis.findings.map((f) => f.text).join('\n')).not.toContain('related to');
  });
});

describe('empty and missing sources', () => {
  const empty: CollectedWorkspace = { since: SINCE, until: NOW, stickies: [], links: [], tasks: [], news: [] };

  it('gives analyses without findings and with zero counts', async () => {
    for (const [name, metric] of [
      ['notes', 'notes'],
      ['meetings', 'meetings'],
      ['tasks', 'tasks'],
      ['news', 'articles'],
    ] as const) {
      const { analysis, calls } = await run(name, empty);
      expect(analysis.findings).toEqual([]);
      expect(analysis.keyTerms).toEqual([]);
      expect(analysis.metrics[metric]).toBe(0);
      expect(calls.length).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('determinism', () => {
  it('gives the same analysis for the same input', async () => {
    for (const name of ['notes', 'meetings', 'tasks', 'news'] as const) {
      const first = await run(name, workspace(), 'long');
      const second = await run(name, workspace(), 'long');
      expect(second).toEqual(first);
    }
  });
});
