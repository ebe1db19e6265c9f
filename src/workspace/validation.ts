import { AppError } from '../errors.ts';

/**
 * Limits shared by every workspace resource. A violation is a 400 naming the field; the "text limits"
 * row of docs/workspace.md lists them.
 */
export const LIMITS = {
  tagsPerRecord: 20,
  tagLength: 50,
  urlLength: 2048,
  titleLength: 500,
  nameLength: 100,
  stickyContentLength: 10_000,
  descriptionLength: 20_000,
  commentLength: 10_000,
  summaryLength: 2_000,
  articleBodyLength: 100_000,
} as const;

/** Tags are trimmed, lower-cased and de-duplicated (first occurrence wins the order). */
export function normalizeTags(tags: readonly string[] | null | undefined, field = 'tags'): string[] {
  if (!tags) return [];
  const seen = new Set<string>();
  for (const raw of tags) {
    const tag = raw.trim().toLowerCase();
    if (tag.length === 0) throw AppError.badInput(field, 'tags must not be empty');
    if (tag.length > LIMITS.tagLength) throw AppError.badInput(field, `each tag may be at most ${LIMITS.tagLength} characters`);
    if (/[\u0000-\u001f,]/.test(tag)) throw AppError.badInput(field, 'tags may not contain commas or control characters');
    seen.add(tag);
  }
  if (seen.size > LIMITS.tagsPerRecord) throw AppError.badInput(field, `at most ${LIMITS.tagsPerRecord} tags`);
  return [...seen];
}

/** Trimmed text within [min, max] characters; `null` passes through for optional fields. */
export function boundedText(value: string, field: string, max: number, options: { min?: number; trim?: boolean } = {}): string {
  const text = options.trim === false ? value : value.trim();
  const min = options.min ?? 1;
  if (text.length < min) throw AppError.badInput(field, min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
  if (text.length > max) throw AppError.badInput(field, `must be at most ${max} characters`);
  return text;
}

export function optionalText(value: string | null | undefined, field: string, max: number): string | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  return text.length === 0 ? null : boundedText(text, field, max);
}

/**
 * http/https URLs only, normalised by the WHATWG URL parser (lower-case scheme and host, default
 * port dropped, path percent-encoded); credentials in the URL are refused. The service never
 * fetches these URLs.
 */
export function normalizeUrl(value: string, field = 'url'): string {
  const text = value.trim();
  if (text.length === 0) throw AppError.badInput(field, 'must not be empty');
  if (text.length > LIMITS.urlLength) throw AppError.badInput(field, `must be at most ${LIMITS.urlLength} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw AppError.badInput(field, 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw AppError.badInput(field, 'only http and https URLs are accepted');
  if (url.username || url.password) throw AppError.badInput(field, 'must not contain credentials');
  if (!url.hostname) throw AppError.badInput(field, 'must have a host');
  const normalized = url.toString();
  if (normalized.length > LIMITS.urlLength) throw AppError.badInput(field, `must be at most ${LIMITS.urlLength} characters`);
  return normalized;
}

/** A free-text search (`search` of stickies and links): trimmed, 1 to 200 characters, or none. */
export function searchText(value: string | null | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (text.length > 200) throw AppError.badInput('search', 'must be at most 200 characters');
  return text;
}
