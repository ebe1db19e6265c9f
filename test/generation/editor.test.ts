import { describe, expect, it } from 'vitest';
import { composeExtractiveSummary } from '../../src/generation/compose.ts';
import { reviewCoverage } from '../../src/generation/editor.ts';
import type { Analysis, CollectedWorkspace, SourceReference } from '../../src/generation/types.ts';
import { COLLECTED, K1, K2, L1, NOW, S1, T1 } from './fixtures.ts';

const K3: SourceReference = { kind: 'task', id: 'k3', title: 'Hire designer' };

function analyses(): Analysis[] {
  return [
    {
      agent: 'notes',
      heading: 'Notes and links',
      findings: [
        { text: 'Note: Budget review needs sign-off from finance.', weight: 0.95, references: [S1] },
        { text: '1 starred link: "Budget template".', weight: 0.7, references: [L1] },
        { text: '2 notes and 1 link in the window.', weight: 0.5, references: [] },
        { text: 'Note: the office plants need watering.', weight: 0.4, references: [] },
      ],
      keyTerms: [],
      metrics: {},
    },
    {
      agent: 'meetings',
      heading: 'Meetings',
      findings: [{ text: 'In "Weekly sync" (Nov 18), Dana: We agreed to ship on Friday.', weight: 0.95, references: [T1] }],
      keyTerms: [],
      metrics: {},
    },
    {
      agent: 'tasks',
      heading: 'Tasks',
      findings: [
        { text: '1 task is overdue: "Send budget" (due 2026-11-12).', weight: 1, references: [K1] },
        { text: '2 urgent tasks are open: "Ship release", "Hire designer".', weight: 0.8, references: [K2, K3] },
      ],
      keyTerms: [],
      metrics: {},
    },
  ];
}

/** What a model might write: cites the meeting, paraphrases the overdue task, misses the rest. */
const WRITTEN = [
  '# Workspace summary',
  '',
  'The team agreed to ship on Friday [1].',
  '',
  'One task is overdue: send the budget, due 2026-11-12.',
  '',
  '## References',
  '',
  '1. Meeting: Weekly sync',
  '2. Sticky: Budget review notes',
  '',
].join('\n');

describe('reviewCoverage', () => {
  it('appends exactly the missing findings under "Also noted", before the references', () => {
    const review = reviewCoverage(WRITTEN, [T1, S1], analyses(), { length: 'short' });
    // short: top 2 per analysis; notes has both missing (S1 is listed but not cited), the meeting is
    // cited, the overdue task is paraphrased (enough content words), the urgent tasks are missing.
    expect(review.checked).toBe(5);
    expect(review.covered).toBe(2);
    expect(review.missing).toEqual([
      { agent: 'notes', text: 'Note: Budget review needs sign-off from finance.' },
      { agent: 'notes', text: '1 starred link: "Budget template".' },
      { agent: 'tasks', text: '2 urgent tasks are open: "Ship release", "Hire designer".' },
    ]);
    expect(review.markdown).toBe(
      [
        '# Workspace summary',
        '',
        'The team agreed to ship on Friday [1].',
        '',
        'One task is overdue: send the budget, due 2026-11-12.',
        '',
        '## Also noted',
        '',
        '- Note: Budget review needs sign-off from finance. [2]',
        '- 1 starred link: "Budget template". [3]',
        '- 2 urgent tasks are open: "Ship release", "Hire designer". [4] [5]',
        '',
        '## References',
        '',
        '1. Meeting: Weekly sync',
        '2. Sticky: Budget review notes',
        '3. Link: Budget template',
        '4. Task: Ship release',
        '5. Task: Hire designer',
        '',
      ].join('\n'),
    );
    expect(review.references).toEqual([T1, S1, L1, K2, K3]);
  });

  it('is idempotent: a second review adds nothing', () => {
    const first = reviewCoverage(WRITTEN, [T1, S1], analyses(), { length: 'short' });
    const second = reviewCoverage(first.markdown, first.references, analyses(), { length: 'short' });
    expect(second.markdown).toBe(first.markdown);
    expect(second.references).toEqual(first.references);
    expect(second.missing).toEqual([]);
    expect(second.covered).toBe(5);
  });

  it('checks more findings for longer summaries', () => {
    const review = reviewCoverage(WRITTEN, [T1, S1], analyses(), { length: 'long' });
    expect(review.checked).toBe(7); // notes 4, meetings 1, tasks 2
    expect(review.missing.map((m) => m.text)).toEqual([
      'Note: Budget review needs sign-off from finance.',
      '1 starred link: "Budget template".',
      '2 notes and 1 link in the window.',
      'Note: the office plants need watering.',
      '2 urgent tasks are open: "Ship release", "Hire designer".',
    ]);
    const again = reviewCoverage(review.markdown, review.references, analyses(), { length: 'long' });
    expect(again.markdown).toBe(review.markdown);
  });

  it('ignores the References section when judging coverage by words', () => {
    // "Budget template" appears only as a reference title: not covered.
    const markdown = '# Workspace summary\n\nNothing much.\n\n## References\n\n1. Link: Budget template\n';
    const review = reviewCoverage(markdown, [L1], [analyses()[0]], { length: 'short' });
    expect(review.missing.map((m) => m.text)).toEqual(['Note: Budget review needs sign-off from finance.', '1 starred link: "Budget template".']);
    expect(review.markdown).toContain(
      '- 1 starred link: "Budget template". [1]\n\n## References\n\n1. Link: Budget template\n2. Sticky: Budget review notes\n',
    );
  });

  it('appends at the end when there is no References section, and extends an existing "Also noted"', () => {
    // Covers the meeting by words: weekly, sync, dana, agreed, ship, friday are 6 of its 7 (not "nov").
    const markdown = '# Workspace summary\n\nIn the weekly sync Dana said we agreed to ship on Friday.\n';
    const first = reviewCoverage(markdown, [], [analyses()[1], analyses()[2]], { length: 'short' });
    expect(first.markdown).toBe(
      '# Workspace summary\n\nIn the weekly sync Dana said we agreed to ship on Friday.\n\n## Also noted\n\n' +
        '- 1 task is overdue: "Send budget" (due 2026-11-12). [1]\n- 2 urgent tasks are open: "Ship release", "Hire designer". [2] [3]\n',
    );
    expect(first.references).toEqual([K1, K2, K3]);

    const more: Analysis = {
      agent: 'news',
      heading: 'News',
      findings: [{ text: 'Reuters: Markets rally on budget deal', weight: 0.9, references: [] }],
      keyTerms: [],
      metrics: {},
    };
    const second = reviewCoverage(first.markdown, first.references, [analyses()[1], analyses()[2], more], { length: 'short' });
    expect(second.missing).toEqual([{ agent: 'news', text: 'Reuters: Markets rally on budget deal' }]);
    expect(second.markdown).toBe(`${first.markdown}- Reuters: Markets rally on budget deal\n`);
    expect(second.markdown.match(/## Also noted/g)).toHaveLength(1);
  });

  it('finds the offline summary complete and leaves it unchanged', () => {
    const summary = composeExtractiveSummary(analyses(), COLLECTED, { length: 'long', now: NOW });
    const review = reviewCoverage(summary.markdown, summary.references, analyses(), { length: 'long' });
    expect(review).toEqual({ markdown: summary.markdown, references: summary.references, covered: 7, checked: 7, missing: [] });
  });
});
