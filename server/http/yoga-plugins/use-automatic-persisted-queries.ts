import { createHash } from 'node:crypto';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

/** Documents kept per instance; a miss only makes the client send the document again (the APQ protocol). */
export const APQ_MAX_DOCUMENTS = 1000;

/**
 * Automatic persisted queries (Apollo's protocol, `extensions.persistedQuery` `{ version: 1,
 * sha256Hash }`): a request with only the hash runs the document registered under it, or answers
 * PERSISTED_QUERY_NOT_FOUND so the client sends hash and document together, which registers it
 * (checked against its hash). Kept in memory per instance, least recently used first out; the
 * document still passes every limit of the pipeline like any other. Off when trusted documents
 * are configured (then only the allow-list runs).
 */
export function useAutomaticPersistedQueries(maxDocuments = APQ_MAX_DOCUMENTS): Plugin {
  const documents = new Map<string, string>();
  const remember = (hash: string, query: string) => {
    documents.delete(hash);
    documents.set(hash, query);
    if (documents.size > maxDocuments) documents.delete(documents.keys().next().value!);
  };
  return {
    onParams({ params, setParams }) {
      const persisted = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
      if (persisted === undefined) return;
      if (persisted.version !== 1 || typeof persisted.sha256Hash !== 'string' || !/^[0-9a-f]{64}$/.test(persisted.sha256Hash)) {
        throw refusal('PersistedQueryNotSupported', 'PERSISTED_QUERY_NOT_SUPPORTED');
      }
      const hash = persisted.sha256Hash;
      if (params.query) {
        if (createHash('sha256').update(params.query).digest('hex') !== hash) {
          throw refusal('The persisted query hash does not match the query', 'BAD_USER_INPUT');
        }
        remember(hash, params.query);
        return;
      }
      const query = documents.get(hash);
      if (query === undefined) throw refusal('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND');
      remember(hash, query);
      setParams({ ...params, query });
    },
  };
}

/** A request error in the form APQ clients look for (message and code; HTTP 200, as Apollo's server answers). */
function refusal(message: string, code: string) {
  return createGraphQLError(message, { extensions: { code, http: { status: 200 } } });
}
