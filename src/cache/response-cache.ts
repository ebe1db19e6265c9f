/**
 * The response cache (docs/caching.md): answers of cached reads, held in this instance's memory,
 * keyed by everything the answer is a function of: the operation (document, its name), its
 * variables, the viewer (user, credential scopes, organizations) and the data versions of the
 * viewer's scopes read just before. A write commits a new version, so the next read's key
 * differs: entries are never invalidated, only no longer asked for, and the least recently used
 * go when the cache is full (CACHE_MAX_BYTES).
 *
 * The same key, as a strong entity tag, answers conditional requests (RFC 9110 ETag and
 * If-None-Match): a client holding the tag of the current versions gets 304 without the operation
 * running.
 */
import { createHash } from 'node:crypto';
import { print, type DocumentNode, type ExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';

export interface CacheKeyParts {
  document: DocumentNode;
  operationName: string | null | undefined;
  variables: Readonly<Record<string, unknown>>;
  userId: string;
  scopes: Iterable<string>;
  organizationIds: Iterable<string>;
  versions: string;
}

/** A document's text, printed once per parsed document (yoga and the REST routes reuse theirs). */
const printed = new WeakMap<DocumentNode, string>();

/**
 * The key: a SHA-256 of the parts, each written unambiguously (JSON). Variables are written in
 * the order the client gave them: the same variables in another order make another key (a miss,
 * never a wrong answer).
 */
export function cacheKey(parts: CacheKeyParts): string {
  let text = printed.get(parts.document);
  if (text === undefined) {
    text = print(parts.document);
    printed.set(parts.document, text);
  }
  return createHash('sha256')
    .update(
      JSON.stringify([
        text,
        parts.operationName ?? null,
        parts.variables,
        parts.userId,
        [...parts.scopes].sort(),
        [...parts.organizationIds].sort(),
        parts.versions,
      ]),
    )
    .digest('base64url');
}

/** The strong entity tag of a key (RFC 9110 8.8.3). */
export function entityTag(key: string): string {
  return `"${key}"`;
}

/** Whether an If-None-Match header matches the tag (weak comparison, as RFC 9110 13.1.2 says; `*` matches any). */
export function noneMatchHits(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const opaque = tag.replace(/^W\//, '');
  return header.split(',').some((candidate) => {
    const trimmed = candidate.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === opaque;
  });
}

export interface ResponseCache {
  get(key: string): ExecutionResult | undefined;
  /** Keeps a result without errors; one larger than an eighth of the cache is not kept. */
  set(key: string, result: ExecutionResult): void;
  readonly enabled: boolean;
}

/** An answer's size as the memory bound counts it: its JSON's length (about its bytes). */
function sizeOf(result: ExecutionResult): number {
  return JSON.stringify(result.data ?? null).length + 64;
}

export function createResponseCache(maxBytes: number): ResponseCache {
  if (maxBytes <= 0) return { get: () => undefined, set: () => undefined, enabled: false };
  const entries = new LRUCache<string, ExecutionResult>({ maxSize: maxBytes, maxEntrySize: Math.floor(maxBytes / 8) });
  return {
    enabled: true,
    get: (key) => entries.get(key),
    set(key, result) {
      if (result.errors?.length || result.data === undefined || result.data === null) return;
      const size = sizeOf(result);
      if (size <= maxBytes / 8) entries.set(key, { data: result.data }, { size });
    },
  };
}
