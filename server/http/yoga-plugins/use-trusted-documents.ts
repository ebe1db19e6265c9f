import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';

/**
 * Trusted documents (TRUSTED_DOCUMENTS_FILE): /graphql runs only the operations of an allow-list,
 * a JSON object of `{ "<sha256 or id>": "<document>" }` as GraphQL Code Generator's and Relay's
 * persisted-documents outputs write it. Clients send the id as Apollo's
 * `extensions.persistedQuery.sha256Hash` (or `documentId`); any other document is refused. The
 * REST routes and MCP tools run the service's own fixed operations and are not affected.
 */
export function useTrustedDocuments(file: string): Plugin {
  const documents = readTrustedDocuments(file);
  return usePersistedOperations({
    allowArbitraryOperations: false,
    extractPersistedOperationId: (params) => {
      const extensions = params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined;
      const id = extensions?.persistedQuery?.sha256Hash ?? (params as { documentId?: unknown }).documentId;
      return typeof id === 'string' ? id : null;
    },
    getPersistedOperation: (id) => documents.get(id) ?? null,
  }) as Plugin;
}

export function readTrustedDocuments(file: string): Map<string, string> {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${file}: must be a JSON object of id -> document`);
  const entries = Object.entries(parsed as Record<string, unknown>);
  for (const [id, document] of entries) if (typeof document !== 'string') throw new Error(`${file}: the document of ${id} is not a string`);
  return new Map(entries as [string, string][]);
}
