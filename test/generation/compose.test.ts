import { describe, expect, it } from 'vitest';
import {
  buildWriterPrompt,
  composeExtractiveSummary,
  numberReferences,
  referencesUsed,
  renderReferences,
  renumberCitations,
} from '../../src/generation/compose.ts';
import type { Analysis, CollectedWorkspace, SourceReference } from '../../src/generation/types.ts';
import { COLLECTED, K1, K2, L1, NOW, S1, T1 } from './fixtures.ts';

function sampleAnalyses(): Analysis[] {
  return [
    {
      agent: 'notes',
      heading: 'Notes and links',
      findings: [
        { text: 'Note: Budget review needs sign-off from finance.', weight: 0.95, references: [S1] },
        { text: '1 starred link: "Budget template".', weight: 0.7, references: [L1] },
        { text: '2 notes and 1 link in the window.', weight: 0.5, references: [] },
      ],
      keyTerms: ['budget'],
      metrics: { notes: 2 },
    },
    {
      agent: 'meetings',
      heading: 'Meetings',
      findings: [{ text: 'In "Weekly sync" (Nov 18), Dana: We agreed to ship on Friday.', weight: 0.95, references: [T1] }],
      keyTerms: ['ship'],
      metrics: { meetings: 1 },
    },
    {
      agent: 'tasks',
      heading: 'Tasks',
      findings: [
        { text: '1 task is overdue: "Send budget" (due 2026-11-12).', weight: 1, references: [K1] },
        { text: '2 urgent or high-priority tasks are open: "Ship release" (urgent), "Send budget" (high).', weight: 0.8, references: [K2, K1] },
      ],
      keyTerms: ['budget'],
      metrics: { tasks: 2 },
    },
    { agent: 'news', heading: 'News', findings: [], keyTerms: [], metrics: { articles: 0 } },
  ];
}

describe('composeExtractiveSummary', () => {
  it('writes title, window, highlights, one section per analysis and numbered references', () => {
    const summary = composeExtractiveSummary(sampleAnalyses(), COLLECTED, { length: 'short', now: NOW });
    expect(summary.provider).toBe('offline');
    expect(summary.markdown).toBe(
      [
        '# Workspace summary',
        '',
        'Window: 2026-11-11 to 2026-11-18 (UTC); generated 2026-11-18 10:05 UTC.',
        '',
        '## Highlights',
        '',
        '- 1 task is overdue: "Send budget" (due 2026-11-12). [1]',
        '- 2 urgent or high-priority tasks are open: "Ship release" (urgent), "Send budget" (high). [2] [1]',
        '- Note: Budget review needs sign-off from finance. [3]',
        '',
        '## Notes and links',
        '',
        '- Note: Budget review needs sign-off from finance. [3]',
        '- 1 starred link: "Budget template". [4]',
        '- 2 notes and 1 link in the window.',
        '',
        '## Meetings',
        '',
        '- In "Weekly sync" (Nov 18), Dana: We agreed to ship on Friday. [5]',
        '',
        '## Tasks',
        '',
        '- 1 task is overdue: "Send budget" (due 2026-11-12). [1]',
        '- 2 urgent or high-priority tasks are open: "Ship release" (urgent), "Send budget" (high). [2] [1]',
        '',
        '## News',
        '',
        '_Nothing in the window._',
        '',
        '## References',
        '',
        '1. Task: Send budget',
        '2. Task: Ship release',
        '3. Sticky: Budget review notes',
        '4. Link: Budget template',
        '5. Meeting: Weekly sync',
        '',
      ].join('\n'),
    );
    expect(summary.references).toEqual([K1, K2, S1, L1, T1]);
  });

  it('has as many highlights as the length allows', () => {
    const highlights = (length: 'short' | 'medium' | 'long') => {
      const markdown = composeExtractiveSummary(sampleAnalyses(), COLLECTED, { length, now: NOW }).markdown;
      const section = markdown.split('## Highlights\n\n')[1].split('\n\n')[0];
      return section.split('\n').length;
    };
    expect(highlights('short')).toBe(3);
    expect(highlights('medium')).toBe(5);
    expect(highlights('long')).toBe(6); // all six findings are distinct
  });

  it('says nothing was found for an empty workspace, without references', () => {
    const empty = sampleAnalyses().map((analysis) => ({ ...analysis, findings: [] }));
    const summary = composeExtractiveSummary(empty, COLLECTED, { length: 'medium', now: NOW });
    expect(summary).toEqual({
      markdown:
        '# Workspace summary\n\nWindow: 2026-11-11 to 2026-11-18 (UTC); generated 2026-11-18 10:05 UTC.\n\nNothing was found in your workspace between 2026-11-11 and 2026-11-18.\n',
      references: [],
      provider: 'offline',
    });
    expect(composeExtractiveSummary([], COLLECTED, { length: 'short', now: NOW }).references).toEqual([]);
  });

  it('is deterministic', () => {
    const a = composeExtractiveSummary(sampleAnalyses(), COLLECTED, { length: 'long', now: NOW });
    const b = composeExtractiveSummary(sampleAnalyses(), COLLECTED, { length: 'long', now: NOW });
    expect(b).toEqual(a);
  });
});

describe('buildWriterPrompt', () => {
  it('gives a system message with the rules and a user message with numbered references and findings', () => {
    const [system, user] = buildWriterPrompt(sampleAnalyses(), COLLECTED, { length: 'medium', now: NOW });
    expect(system.role).toBe('system');
    expect(system.content).toContain('[n] markers');
    expect(system.content).toContain('do not invent');
    expect(user.role).toBe('user');
    expect(user.content).toContain(
      '[1] Sticky: Budget review notes\n[2] Link: Budget template\n[3] Meeting: Weekly sync\n[4] Task: Send budget\n[5] Task: Ship release',
    );
    expect(user.content).toContain(
      '## Tasks\n- 1 task is overdue: "Send budget" (due 2026-11-12). [4]\n- 2 urgent or high-priority tasks are open: "Ship release" (urgent), "Send budget" (high). [5] [4]',
    );
    expect(user.content).toContain('## News\n- Nothing in the window.');
    expect(user.content).not.toContain('left out');
  });

  it('drops the lowest-weight findings first to fit the limit, and their references', () => {
    const full = buildWriterPrompt(sampleAnalyses(), COLLECTED, { length: 'medium', now: NOW });
    const fullLength = full[0].content.length + full[1].content.length;
    const limited = buildWriterPrompt(sampleAnalyses(), COLLECTED, { length: 'medium', now: NOW, maxChars: fullLength - 60 });
    const user = limited[1].content;
    expect(limited[0].content.length + user.length).toBeLessThanOrEqual(fullLength - 60);
    // Weights 0.5 and 0.7 go; 0.8, 0.95, 0.95 and 1 stay, as does the note saying so.
    expect(user).not.toContain('2 notes and 1 link in the window.');
    expect(user).not.toContain('starred link');
    expect(user).not.toContain('[2] Link: Budget template');
    expect(user).toContain('[1] Sticky: Budget review notes\n[3] Meeting: Weekly sync\n[4] Task: Send budget\n[5] Task: Ship release\n');
    expect(user).toContain('We agreed to ship on Friday. [3]');
    expect(user).toContain('"Send budget" (high). [5] [4]');
    expect(user).toContain('(2 minor findings left out)');
  });

  it('always keeps the heaviest findings that fit, whatever the limit', () => {
    const texts = sampleAnalyses()
      .flatMap((analysis) => analysis.findings)
      .sort((a, b) => b.weight - a.weight)
      .map((finding) => finding.text);
    const partial = new Set<number>();
    for (let maxChars = 2500; maxChars >= 900; maxChars -= 10) {
      const [system, user] = buildWriterPrompt(sampleAnalyses(), COLLECTED, { length: 'short', now: NOW, maxChars });
      const kept = texts.map((text) => user.content.includes(text));
      const firstMissing = kept.indexOf(false);
      if (firstMissing >= 0) expect(kept.slice(firstMissing).every((k) => !k)).toBe(true);
      if (firstMissing > 0) partial.add(firstMissing);
      if (kept.every((k) => !k)) continue; // only headers are left: nothing more to drop
      expect(system.content.length + user.content.length).toBeLessThanOrEqual(maxChars);
    }
    expect([...partial].sort()).toEqual([1, 2, 3, 4, 5]); // every partial cut was seen
  });

  it('keeps a large input under 12,000 characters by default', () => {
    const big: Analysis[] = [
      {
        agent: 'notes',
        heading: 'Notes and links',
        findings: Array.from({ length: 80 }, (_, i) => ({
          text: `Note ${i}: ${'budget planning details '.repeat(30)}`,
          weight: i === 79 ? 1 : 0.5 - i / 1000,
          references: [{ kind: 'sticky' as const, id: `s${i}`, title: `Note ${i}` }],
        })),
        keyTerms: [],
        metrics: {},
      },
    ];
    const [system, user] = buildWriterPrompt(big, COLLECTED, { length: 'long', now: NOW });
    expect(system.content.length + user.content.length).toBeLessThanOrEqual(12_000);
    expect(user.content).toContain('Note 79:'); // the heaviest survives
    expect(user.content).toContain('Note 0:'); // then the earlier, heavier ones
    expect(user.content).not.toContain('Note 78:');
    expect(user.content).toContain('[80] Sticky: Note 79'); // numbers stay those of numberReferences
  });
});

describe('citations', () => {
  const numbered = [S1, L1, T1, K1];

  it('referencesUsed lists the cited references in number order, ignoring unknown numbers and link texts', () => {
    expect(referencesUsed('Ship it [3]. Budget [1][3]. Nope [9] and [2](https://x.example).', numbered)).toEqual([S1, T1]);
    expect(referencesUsed('no markers', numbered)).toEqual([]);
  });

  it('numberReferences numbers each record once in order of first use', () => {
    expect(numberReferences(sampleAnalyses())).toEqual([S1, L1, T1, K1, K2]);
  });

  it('renumberCitations compacts the numbers in order of appearance and drops unknown markers', () => {
    expect(renumberCitations('A [4]. B [1] [4]. C [7].', numbered)).toEqual({ markdown: 'A [1]. B [2] [1]. C.', references: [K1, S1] });
  });

  it('renderReferences lists references with their kind', () => {
    expect(renderReferences([T1, { kind: 'news', id: 'n1', title: '[Breaking] `news`' }])).toBe(
      '## References\n\n1. Meeting: Weekly sync\n2. News: Breaking news',
    );
    expect(renderReferences([])).toBe('');
  });
});
