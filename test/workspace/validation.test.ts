import { describe, expect, it } from 'vitest';
import { LIMITS, normalizeTags, normalizeUrl } from '../../src/workspace/validation.ts';
import { AppError } from '../../src/errors.ts';

describe('normalizeTags', () => {
  it('trims, lower-cases and de-duplicates, keeping the first order', () => {
    expect(normalizeTags(['  Work ', 'work', 'Ideas', 'IDEAS', 'q3'])).toEqual(['work', 'ideas', 'q3']);
  });
  it('refuses empty, long, comma and too many tags, naming the field', () => {
    expect(() => normalizeTags([' '])).toThrow(/Invalid tags: tags must not be empty/);
    expect(() => normalizeTags(['x'.repeat(LIMITS.tagLength + 1)])).toThrow(/at most 50 characters/);
    expect(() => normalizeTags(['a,b'])).toThrow(/commas/);
    expect(() => normalizeTags(Array.from({ length: 21 }, (_, i) => `t${i}`))).toThrow(/at most 20 tags/);
    expect(normalizeTags(Array.from({ length: 25 }, () => 'same'))).toEqual(['same']);
  });
});

describe('normalizeUrl', () => {
  it('normalises http and https URLs', () => {
    expect(normalizeUrl(' HTTPS://Example.COM:443/a b?q=1 ')).toBe('https://example.com/a%20b?q=1');
    expect(normalizeUrl('http://example.com')).toBe('http://example.com/');
  });
  it('refuses other schemes, credentials, relative and over-long URLs', () => {
    for (const bad of [
      'ftp://example.com/',
      'javascript:alert(1)',
      'file:///etc/passwd',
      '/relative',
      'https://user:pw@example.com/',
      `https://example.com/${'a'.repeat(LIMITS.urlLength)}`,
    ]) {
      const error = (() => {
        try {
          normalizeUrl(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(error, bad).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('BAD_USER_INPUT');
    }
  });
});
