import { TAG_LIMITS, parseTags as parseTagText } from '../../components/tag-input.tsx';

/** Form helpers shared by the tasks and news pages (labels and tags follow the same rules). */

/** "Close, returns , close" -> ["close", "returns"]: trimmed, lower-cased, de-duplicated, as the API stores them. */
export function parseTags(text: string): string[] {
  return parseTagText(text).tags;
}

/** The API's limit on tags and labels (at most 20 of at most 50 characters), in words; null when they fit. */
export function tagsProblem(tags: string[], noun: 'labels' | 'tags'): string | null {
  if (tags.length > TAG_LIMITS.count) return `Use at most ${TAG_LIMITS.count} ${noun} (you have ${tags.length}).`;
  const long = tags.find((tag) => tag.length > TAG_LIMITS.length);
  return long ? `Each of the ${noun} may be at most ${TAG_LIMITS.length} characters: “${long.slice(0, 20)}…” is ${long.length}.` : null;
}

/** True for an http or https URL, the only kinds the API accepts. */
export function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A `datetime-local` input's value (local time, no zone) as an ISO instant; '' -> undefined. */
export function localDateTimeToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
