import { describe, expect, it } from 'vitest';
import { parseIntent, parsePeriod, subjectPhrase } from '../../src/workspace/chat/intent.ts';
import { resolveEntity, type EntityRef } from '../../src/workspace/chat/answerers/entities.ts';
import { cite } from '../../src/workspace/chat/citations.ts';
import { mdLink } from '../../src/workspace/chat/links.ts';

const TODAY = '2026-11-24';

describe('parseIntent: returns', () => {
  it("the issue's question: time-weighted return of a named fund this year", () => {
    expect(parseIntent('What is the time-weighted return of Harbor Growth Fund LP this year?', TODAY)).toEqual({
      kind: 'returns',
      subject: { accountCodes: [], phrase: 'Harbor Growth Fund LP' },
      period: { start: '2025-12-31', end: TODAY, label: 'this year', assumed: false },
      measure: 'time-weighted',
    });
  });

  it('account numbers, measures and periods', () => {
    expect(parseIntent('Modified Dietz return of dc-1001 last month', TODAY)).toMatchObject({
      kind: 'returns',
      subject: { accountCodes: ['DC-1001'], phrase: null },
      period: { start: '2026-09-30', end: '2026-10-31', label: 'last month (October 2026)' },
      measure: 'money-weighted',
    });
    expect(parseIntent('How did Harbor perform in 2025?', TODAY)).toMatchObject({
      kind: 'returns',
      subject: { phrase: 'Harbor' },
      period: { start: '2024-12-31', end: '2025-12-31', label: 'in 2025' },
      measure: 'both',
    });
    expect(parseIntent('returns of harbor over the last 30 days', TODAY)).toMatchObject({ period: { start: '2026-10-25', end: TODAY, label: 'last 30 days' } });
    expect(parseIntent('Harbor Growth Fund LP returns', TODAY)).toMatchObject({
      subject: { phrase: 'Harbor Growth Fund LP' },
      period: { start: '2025-12-31', end: TODAY, assumed: true },
    });
    expect(parseIntent('How did Harbor do this year?', TODAY)).toMatchObject({ kind: 'returns', subject: { phrase: 'Harbor' } });
  });

  it('periods: capped at today, month and year arithmetic across year ends', () => {
    expect(parsePeriod('in 2026', TODAY)).toEqual({ start: '2025-12-31', end: TODAY, label: 'in 2026', assumed: false });
    expect(parsePeriod('last month', '2026-01-15')).toMatchObject({ start: '2025-11-30', end: '2025-12-31' });
    expect(parsePeriod('this month', '2026-03-10')).toMatchObject({ start: '2026-02-28', end: '2026-03-10' });
    expect(parsePeriod('last quarter', TODAY)).toMatchObject({ start: '2026-06-30', end: '2026-09-30' });
    expect(parsePeriod('last 3 months', '2026-05-31')).toMatchObject({ start: '2026-02-28', end: '2026-05-31' });
    expect(parsePeriod('from 2026-02-01 to 2026-03-01', TODAY)).toMatchObject({ start: '2026-02-01', end: '2026-03-01' });
    expect(parsePeriod('since 2026-06-30', TODAY)).toMatchObject({ start: '2026-06-30', end: TODAY });
    expect(parsePeriod('march 2026', TODAY)).toMatchObject({ start: '2026-02-28', end: '2026-03-31', label: 'March 2026' });
    expect(parsePeriod('ytd', TODAY)).toMatchObject({ start: '2025-12-31', end: TODAY });
    expect(parsePeriod('in 2031', TODAY)).toBeNull();
    expect(parsePeriod('hello', TODAY)).toBeNull();
  });

  it('subject phrases keep inner words and drop the question around them', () => {
    expect(subjectPhrase('What was the return for the Bank of Nova Fund since 2026-01-01?')).toBe('Bank of Nova Fund');
    expect(subjectPhrase("What's Harbor's performance?")).toBe('Harbor');
    expect(subjectPhrase('What is my return this year?')).toBeNull();
  });
});

describe('parseIntent: comparisons, files, tasks, news, refusals, fallback', () => {
  it('comparisons', () => {
    expect(parseIntent('How many returns match the custodian for DC-1001?', TODAY)).toMatchObject({
      kind: 'comparisons',
      subject: { accountCodes: ['DC-1001'] },
      period: null,
    });
    expect(parseIntent('custodian comparison of Harbor last month', TODAY)).toMatchObject({
      kind: 'comparisons',
      subject: { phrase: 'Harbor' },
      period: { label: 'last month (October 2026)' },
    });
    expect(parseIntent('DC-1001 returns to investigate', TODAY)).toMatchObject({ kind: 'comparisons' });
    // An account number is not a year.
    expect(parseIntent('How many returns of HG-2001 match the custodian?', TODAY)).toMatchObject({
      kind: 'comparisons',
      subject: { accountCodes: ['HG-2001'] },
      period: null,
    });
    expect(parseIntent('return of HG-2001', TODAY)).toMatchObject({ period: { assumed: true } });
  });

  it('files', () => {
    expect(parseIntent('What did I upload last?', TODAY)).toEqual({ kind: 'files', filter: 'latest' });
    expect(parseIntent('Which files failed and why?', TODAY)).toEqual({ kind: 'files', filter: 'failed' });
    expect(parseIntent('latest uploads', TODAY)).toEqual({ kind: 'files', filter: 'latest' });
  });

  it('tasks: overdue, due soon, assigned to someone; plain listings stay with the search', () => {
    expect(parseIntent('Which tasks are overdue?', TODAY)).toEqual({ kind: 'tasks', filter: 'overdue', assignee: null });
    expect(parseIntent("What's overdue?", TODAY)).toEqual({ kind: 'tasks', filter: 'overdue', assignee: null });
    expect(parseIntent('tasks due this week', TODAY)).toEqual({ kind: 'tasks', filter: 'due-soon', assignee: null });
    expect(parseIntent('Show tasks assigned to Ana Lima', TODAY)).toEqual({ kind: 'tasks', filter: 'assigned', assignee: 'ana lima' });
    expect(parseIntent('which tasks are assigned to ben that are overdue?', TODAY)).toMatchObject({ filter: 'assigned', assignee: 'ben' });
    expect(parseIntent('show my tasks', TODAY)).toBeNull();
    expect(parseIntent('what are my open tasks?', TODAY)).toBeNull();
    expect(parseIntent('My tasks about returns', TODAY)).toBeNull();
  });

  it('news: latest and the digest; a topic stays with the search', () => {
    expect(parseIntent('latest news', TODAY)).toEqual({ kind: 'news', filter: 'latest' });
    expect(parseIntent("This week's news digest", TODAY)).toEqual({ kind: 'news', filter: 'digest' });
    expect(parseIntent('news this week', TODAY)).toEqual({ kind: 'news', filter: 'digest' });
    expect(parseIntent('News about rates', TODAY)).toBeNull();
  });

  it('declines forecasts and advice', () => {
    expect(parseIntent('Forecast the return of Harbor next year', TODAY)).toEqual({ kind: 'unsupported', what: 'forecast' });
    expect(parseIntent('What will the Harbor fund return next quarter?', TODAY)).toEqual({ kind: 'unsupported', what: 'forecast' });
    expect(parseIntent('Should I sell DC-1001?', TODAY)).toEqual({ kind: 'unsupported', what: 'advice' });
  });

  it('everything else falls back to the keyword search', () => {
    for (const text of [
      'What do I have on Keystone?',
      'My latest notes',
      'Show my tasks about the fee comparison',
      'and the fee comparison?',
      'What did we decide about rebalancing?',
      'hi?',
      '',
    ]) {
      expect(parseIntent(text, TODAY), text).toBeNull();
    }
  });
});

describe('resolveEntity', () => {
  const entity = (entityName: string, accountCode: string, orgName = 'Org'): EntityRef => ({ id: accountCode, orgId: 'o', entityName, accountCode, orgName });
  const harbor = entity('Harbor Growth Fund LP', 'DC-1001');
  const harborIncome = entity('Harbor Income Fund', 'DC-1002');
  const keystone = entity('Keystone Balanced Portfolio', 'DC-1003');
  const all = [harbor, harborIncome, keystone];
  const resolve = (message: string) => {
    const intent = parseIntent(message, TODAY);
    if (!intent || intent.kind !== 'returns') throw new Error(`not a returns question: ${message}`);
    return resolveEntity(all, message, intent.subject);
  };

  it('by account number, full name or an unambiguous part, case-insensitively', () => {
    expect(resolve('return of dc-1003 this year')).toEqual({ kind: 'one', entity: keystone });
    expect(resolve('What is the time-weighted return of harbor growth fund lp this year?')).toEqual({ kind: 'one', entity: harbor });
    expect(resolve('return of Keystone')).toEqual({ kind: 'one', entity: keystone });
    expect(resolve('return of harbor income')).toEqual({ kind: 'one', entity: harborIncome });
  });

  it('lists the candidates when ambiguous and the accounts when nothing matches', () => {
    expect(resolve('return of Harbor this year')).toEqual({ kind: 'many', candidates: [harbor, harborIncome] });
    expect(resolve('return of Zeppelin Fund')).toEqual({ kind: 'none', known: all });
    expect(resolve('return of DC-9999')).toEqual({ kind: 'none', known: all });
    expect(resolve('what is my return this year')).toEqual({ kind: 'many', candidates: all });
    expect(resolveEntity([keystone], 'what is my return', { accountCodes: [], phrase: null })).toEqual({ kind: 'one', entity: keystone });
  });
});

describe('links and citations', () => {
  it('are Markdown links whose text cannot break out', () => {
    expect(cite('task', '"Prepare [draft]"', '#/tasks/1')).toBe('[task "Prepare \\[draft\\]"](#/tasks/1)');
    expect(mdLink('Returns', '#/returns')).toBe('[Returns](#/returns)');
    expect(mdLink('x', 'https://example.com/a b(c)')).toBe('[x](https://example.com/a%20b%28c%29)');
  });
});
