import { describe, expect, it } from 'vitest';
import { excerpt, keyTerms, markdownSafe, rankSentences, splitSentences, stem, tokenize } from '../../src/generation/extractive.ts';
import type { SourceReference } from '../../src/generation/types.ts';

describe('splitSentences', () => {
  it('does not split at abbreviations, initials, decimals or inside URLs', () => {
    expect(
      splitSentences(
        'Mr. Smith met Dr. Jones at 3.5 p.m. today. See https://example.com/a.b?x=1 for the details! We use tools, e.g. pandas, daily. J. R. Tolkien wrote it.',
      ),
    ).toEqual([
      'Mr. Smith met Dr. Jones at 3.5 p.m. today.',
      'See https://example.com/a.b?x=1 for the details!',
      'We use tools, e.g. pandas, daily.',
      'J. R. Tolkien wrote it.',
    ]);
  });

  it('ends a sentence after a may-end abbreviation only before a capital', () => {
    expect(splitSentences('We bought pens, paper etc. Then we went home. Pens, paper etc. were cheap.')).toEqual([
      'We bought pens, paper etc.',
      'Then we went home.',
      'Pens, paper etc. were cheap.',
    ]);
    expect(splitSentences('The answer was no. Then we left the room. See No. 5 for the rest.')).toEqual([
      'The answer was no.',
      'Then we left the room.',
      'See No. 5 for the rest.',
    ]);
  });

  it('treats newlines as boundaries, strips markdown markers and drops short fragments', () => {
    const text =
      '# Weekly plan for us\n- first bullet point here\n* [ ] a checkbox item here\n> quoted line goes here\n1. numbered item is here\nOkay.\nYes sure\n\nWhy did it fail? Nobody knows yet... We will see.';
    expect(splitSentences(text)).toEqual([
      'Weekly plan for us',
      'first bullet point here',
      'a checkbox item here',
      'quoted line goes here',
      'numbered item is here',
      'Why did it fail?',
      'Nobody knows yet...',
      'We will see.',
    ]);
  });

  it('handles empty text and CRLF', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences('one two three\r\nfour five six')).toEqual(['one two three', 'four five six']);
  });
});

describe('tokenize', () => {
  it('keeps lower-case content-word stems and drops stopwords, numbers and short tokens', () => {
    expect(tokenize("The team's plan: we DECIDED on 2026 Q3 shipping, as of 3.5 percent!")).toEqual(['team', 'plan', 'decid', 'ship', 'percent']);
  });

  it('stems plurals and verb endings so forms of a word meet', () => {
    expect(['decide', 'decided', 'deciding', 'decides'].map(stem)).toEqual(['decid', 'decid', 'decid', 'decid']);
    expect(['ship', 'shipped', 'shipping', 'ships'].map(stem)).toEqual(['ship', 'ship', 'ship', 'ship']);
    expect(['stories', 'news', 'status', 'class', 'called'].map(stem)).toEqual(['story', 'news', 'status', 'class', 'call']);
  });
});

describe('rankSentences', () => {
  const cluster = [
    'Hiring costs rose in the budget.',
    'Travel costs need a review.',
    'The budget review covers hiring and travel costs.',
    'The budget review is next week.',
    'Unrelated lunch menu features pasta.',
  ];

  it('ranks the central sentence of a cluster first and the outlier last', () => {
    const ranked = rankSentences(
      cluster.map((text) => ({ text })),
      { max: 5 },
    );
    expect(ranked[0]).toEqual({ text: 'The budget review covers hiring and travel costs.', score: 1, index: 2 });
    expect(ranked.at(-1)?.text).toBe('Unrelated lunch menu features pasta.');
    expect(ranked.map((r) => r.index).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('does not pick both of two near-duplicates', () => {
    const items = [...cluster, 'The budget review covers hiring and travel costs today.'].map((text) => ({ text }));
    const ranked = rankSentences(items, { max: 6 });
    const texts = ranked.map((r) => r.text);
    expect(texts.filter((t) => t.startsWith('The budget review covers'))).toHaveLength(1);
    expect(ranked).toHaveLength(5);
  });

  it('drops exact duplicates even without content words', () => {
    const ranked = rankSentences([{ text: 'It is what it is.' }, { text: 'it is what it is' }], { max: 2 });
    expect(ranked.map((r) => r.index)).toEqual([0]);
  });

  it('lets a boost outweigh centrality and keeps references', () => {
    const reference: SourceReference = { kind: 'sticky', id: 's9', title: 'Lunch' };
    const items = cluster.map((text, i) => (i === 4 ? { text, boost: 1.5, reference } : { text }));
    const [first] = rankSentences(items, { max: 1 });
    expect(first.index).toBe(4);
    expect(first.reference).toEqual(reference);
    expect(first.score).toBeGreaterThan(1.5);
  });

  it('handles no sentences, one sentence and max 0', () => {
    expect(rankSentences([], { max: 3 })).toEqual([]);
    expect(rankSentences([{ text: 'Only one sentence here.' }], { max: 3 })).toEqual([{ text: 'Only one sentence here.', score: 1, index: 0 }]);
    expect(
      rankSentences(
        cluster.map((text) => ({ text })),
        { max: 0 },
      ),
    ).toEqual([]);
  });

  it('is deterministic, breaking ties by input order', () => {
    const items = cluster.map((text) => ({ text }));
    expect(rankSentences(items, { max: 5 })).toEqual(rankSentences(items, { max: 5 }));
    const tie = rankSentences([{ text: 'alpha bravo charlie' }, { text: 'delta echo foxtrot' }], { max: 2 });
    expect(tie.map((r) => [r.index, r.score])).toEqual([
      [0, 1],
      [1, 1],
    ]);
  });
});

describe('keyTerms', () => {
  it('returns the most characteristic words, ties alphabetical', () => {
    expect(keyTerms(['budget budget review', 'budget plan', 'lunch'], 3)).toEqual(['budget', 'lunch', 'plan']);
    expect(keyTerms(['budget budget review', 'budget plan', 'lunch'], 10)).toEqual(['budget', 'lunch', 'plan', 'review']);
  });

  it('shows the commonest written form of a stem', () => {
    expect(keyTerms(['Meetings, meetings and one meeting.', 'the agenda'], 2)).toEqual(['meetings', 'agenda']);
  });

  it('handles nothing to rank', () => {
    expect(keyTerms([], 5)).toEqual([]);
    expect(keyTerms(['the and of'], 5)).toEqual([]);
    expect(keyTerms(['budget'], 0)).toEqual([]);
  });
});

describe('markdownSafe and excerpt', () => {
  it('flattens to one line without brackets, backticks or leading markers', () => {
    expect(markdownSafe('## Plan [draft]\n with `code`')).toBe('Plan draft with code');
    expect(markdownSafe('- * item')).toBe('item');
    expect(markdownSafe('1. first')).toBe('1\\. first');
  });

  it('cuts at a word boundary with an ellipsis', () => {
    expect(excerpt('alpha bravo charlie delta', 14)).toBe('alpha bravo…');
    expect(excerpt('short', 14)).toBe('short');
  });
});
