import { describe, expect, it } from 'vitest';
import { isoWeekOf, isoWeeksInYear, parseIsoWeek } from '../../src/workspace/news/iso-week.ts';
import { articleUrl } from '../../src/workspace/news/news-service.ts';
import { AppError } from '../../src/errors.ts';

const DAY = 86_400_000;

describe('parseIsoWeek', () => {
  it('gives Monday 00:00 UTC to the next Monday for known weeks', () => {
    expect(parseIsoWeek('2026-W47')).toEqual({ week: '2026-W47', start: new Date('2026-11-16T00:00:00.000Z'), end: new Date('2026-11-23T00:00:00.000Z') });
    // Week 1 may start in the previous calendar year, and week 53 end in the next.
    expect(parseIsoWeek('2026-W01').start.toISOString()).toBe('2025-12-29T00:00:00.000Z');
    expect(parseIsoWeek('2026-W53').start.toISOString()).toBe('2026-12-28T00:00:00.000Z');
    expect(parseIsoWeek('2026-W53').end.toISOString()).toBe('2027-01-04T00:00:00.000Z');
    expect(parseIsoWeek('2021-W01').start.toISOString()).toBe('2021-01-04T00:00:00.000Z');
    expect(parseIsoWeek('2020-W53').start.toISOString()).toBe('2020-12-28T00:00:00.000Z');
  });

  it('knows which years have 53 weeks', () => {
    expect([2015, 2020, 2026, 2032].map(isoWeeksInYear)).toEqual([53, 53, 53, 53]);
    expect([2021, 2024, 2025, 2027].map(isoWeeksInYear)).toEqual([52, 52, 52, 52]);
  });

  it('refuses anything else with a 400 naming the field', () => {
    for (const bad of ['2026-47', '2026W47', '2026-W7', '2026-W00', '2025-W53', '2026-W54', '26-W47', '2026-w47x', '', 'last week', '1969-W10']) {
      let error: unknown;
      try {
        parseIsoWeek(bad);
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('BAD_USER_INPUT');
      expect((error as AppError).message, bad).toMatch(/^Invalid week: /);
    }
  });

  it('agrees with isoWeekOf for every day of 2019-2033: each day lies in the week it is named for', () => {
    for (let t = Date.UTC(2019, 0, 1); t < Date.UTC(2034, 0, 1); t += DAY) {
      const day = new Date(t + 13 * 3_600_000);
      const week = isoWeekOf(day);
      const range = parseIsoWeek(week);
      expect(range.start.getTime() <= day.getTime() && day.getTime() < range.end.getTime(), `${day.toISOString()} in ${week}`).toBe(true);
      expect(range.start.getUTCDay()).toBe(1);
    }
    expect(isoWeekOf(new Date('2027-01-01T12:00:00Z'))).toBe('2026-W53');
    expect(isoWeekOf(new Date('2024-12-30T00:00:00Z'))).toBe('2025-W01');
    expect(isoWeekOf(new Date('2026-11-22T23:59:59.999Z'))).toBe('2026-W47');
  });
});

describe('articleUrl', () => {
  it('normalises like links and drops the fragment, so one article has one url', () => {
    expect(articleUrl('HTTPS://News.Example.COM:443/a/b?x=1#comments')).toBe('https://news.example.com/a/b?x=1');
    expect(articleUrl('http://example.com')).toBe('http://example.com/');
    expect(() => articleUrl('ftp://example.com/')).toThrow(/^Invalid url: only http and https URLs are accepted$/);
  });
});
