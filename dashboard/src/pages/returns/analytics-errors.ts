import type { CombinedError } from 'urql';

/**
 * What a reported-returns panel says when its query fails: an unknown entity, or one with nothing
 * to report (no valuations), is said plainly as an empty state (the daily returns above already
 * raise the alert); a currency without the rates it needs is a warning naming the pair and dates
 * (the reader can choose another currency); anything else is an error to show as one.
 */
export function explainAnalyticsError(error: CombinedError, entityName: string): { empty: string } | { rates: string } | { error: CombinedError } {
  const first = error.graphQLErrors[0];
  const code = first?.extensions?.code;
  if (code === 'NOT_FOUND') return { empty: `There is no entity named “${entityName}” in your organizations.` };
  if (code === 'BAD_USER_INPUT') {
    const problem = first?.extensions?.problem;
    const text = typeof problem === 'string' ? problem : (first?.message ?? '');
    if (first?.extensions?.field === 'currency') return { rates: text };
    return { empty: `No returns to report: ${text}.` };
  }
  return { error };
}
