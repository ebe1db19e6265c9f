import { Client, cacheExchange, fetchExchange, subscriptionExchange } from 'urql';
import { createClient as createSseClient } from 'graphql-sse';

/**
 * Every request carries this header: the service asks cookie-authenticated writes for it
 * (a cross-site form cannot set a custom header), and it is harmless on reads.
 */
export const CSRF_HEADERS = { 'X-CSRF-Protection': '1' } as const;

/** Subscriptions over server-sent events with the graphql-sse protocol (distinct connections mode). */
export const sseClient = createSseClient({
  url: '/graphql',
  credentials: 'same-origin',
  headers: { ...CSRF_HEADERS },
  // No silent retries: a dropped stream reaches the page at once, which says so and resubscribes
  // from the last event it has (graphql-sse would resubscribe from the original position, unseen).
  retryAttempts: 0,
});

export const graphqlClient = new Client({
  url: '/graphql',
  requestPolicy: 'cache-and-network',
  fetchOptions: () => ({ credentials: 'same-origin', headers: { ...CSRF_HEADERS } }),
  exchanges: [
    cacheExchange,
    fetchExchange,
    subscriptionExchange({
      forwardSubscription(operation) {
        return {
          subscribe: (sink) => ({ unsubscribe: sseClient.subscribe({ ...operation, query: operation.query ?? '' }, sink) }),
        };
      },
    }),
  ],
});
