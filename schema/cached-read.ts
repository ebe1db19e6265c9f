/**
 * The mark of a cached read (docs/caching.md): `extensions: CACHED_READ` on a Query field whose
 * answer is a function of its arguments, the viewer's scopes and the data of the viewer and their
 * organizations that the data-version triggers count (prisma/migrations/20261128100000_data_versions),
 * and of nothing else (no clock, no other user's data, no service state). An operation whose every
 * root field carries it is answered from the cache and answers conditional GETs
 * (schema/pipeline/use-response-cache.ts).
 */
export const CACHED_READ = Object.freeze({ cachedRead: true });
