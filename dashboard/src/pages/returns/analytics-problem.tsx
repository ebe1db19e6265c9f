import { EmptyState, ErrorNotice } from '../../components/notice.tsx';
import type { explainAnalyticsError } from './analytics-errors.ts';

/** A reported-returns panel's failed query, as explainAnalyticsError sorts it: an empty state, a missing rate, or an error. */
export function AnalyticsProblem({
  explained,
  title,
  currency,
}: {
  explained: ReturnType<typeof explainAnalyticsError>;
  title: string;
  currency: string | null;
}) {
  if ('error' in explained) return <ErrorNotice error={explained.error} title={title} />;
  if ('empty' in explained) return <EmptyState>{explained.empty}</EmptyState>;
  return (
    <div className="notice notice-warning" role="alert">
      <strong>No figures in {currency ?? 'this currency'}: </strong>
      {explained.rates}. Choose another currency above.
    </div>
  );
}
