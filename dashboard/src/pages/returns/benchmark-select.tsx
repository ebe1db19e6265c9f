import { useEffect, useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { useViewer } from '../../viewer.tsx';
import { ErrorNotice } from '../../components/notice.tsx';
import { formatDate } from '../../components/format.ts';
import { BENCHMARK_READS, BenchmarkSeriesQuery, SetEntityBenchmarkMutation } from './analytics-queries.ts';

/**
 * The entity's benchmark: the assigned one's name, and for a credential that may assign one
 * (write:upload) a choice of the organization's uploaded series with a button that assigns it
 * (setEntityBenchmark). The period table, the calendar and the chart's benchmark line refetch.
 */
export function BenchmarkSelect({ entityName, assigned }: { entityName: string; assigned: string | null }) {
  const viewer = useViewer();
  const canAssign = viewer.scopes.includes('write:upload') || viewer.scopes.includes('admin');
  const [{ data: seriesData }] = useQuery({ query: BenchmarkSeriesQuery, pause: !canAssign });
  const [saving, assign] = useMutation(SetEntityBenchmarkMutation);
  const [draft, setDraft] = useState(assigned ?? '');
  const [announcement, setAnnouncement] = useState('');
  const hintId = useId();
  useEffect(() => setDraft(assigned ?? ''), [assigned]);

  if (!canAssign) {
    return (
      <p className="benchmark-field benchmark-readonly">
        <span className="field-name">Benchmark</span> {assigned ?? <span className="hint">none assigned</span>}
      </p>
    );
  }
  const organizations = viewer.user.organizations;
  const orgName = (id: string) => organizations.find((org) => org.id === id)?.name ?? id;
  const series = seriesData?.benchmarkSeries ?? [];
  const names = [...new Set(series.map((s) => s.name))];
  // The assigned one stays a choice even if its levels were removed since.
  const choices = assigned && !names.includes(assigned) ? [assigned, ...names] : names;

  /** The chosen series' dates, as a sentence. */
  function spanOf(name: string): string {
    const of = series.filter((s) => s.name === name);
    if (of.length === 0) return '';
    const first = of.reduce((min, s) => (s.firstDate < min ? s.firstDate : min), of[0].firstDate);
    const last = of.reduce((max, s) => (s.lastDate > max ? s.lastDate : max), of[0].lastDate);
    return ` ${name}: levels from ${formatDate(first)} to ${formatDate(last)}.`;
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setAnnouncement('');
    const result = await assign({ entityName, benchmark: draft || null }, BENCHMARK_READS);
    if (result.data) {
      const chosen = result.data.setEntityBenchmark.benchmark;
      setAnnouncement(chosen ? `${entityName} is now compared with ${chosen}.` : `${entityName} has no benchmark now.`);
    }
  }

  const forbidden = saving.error?.graphQLErrors.some((e) => e.extensions?.code === 'FORBIDDEN');
  return (
    <form className="benchmark-field" onSubmit={(event) => void submit(event)}>
      <div className="benchmark-choice">
        <label>
          Benchmark
          <select value={draft} onChange={(event) => setDraft(event.target.value)} aria-describedby={hintId}>
            <option value="">None</option>
            {choices.map((name) => {
              const where = organizations.length > 1 ? series.filter((s) => s.name === name).map((s) => orgName(s.organizationId)) : [];
              return (
                <option key={name} value={name}>
                  {where.length > 0 ? `${name} (${where.join(', ')})` : name}
                </option>
              );
            })}
          </select>
        </label>
        <button type="submit" className="button-secondary" disabled={saving.fetching || draft === (assigned ?? '')}>
          {saving.fetching ? 'Assigning…' : 'Assign'}
        </button>
      </div>
      <span className="hint" id={hintId}>
        {series.length === 0 && seriesData
          ? 'No benchmark series uploaded yet (file type benchmark).'
          : `Compared in the periods and drawn on the chart.${spanOf(draft)}`}
      </span>
      {forbidden ? (
        <ErrorNotice error="Your credential cannot assign benchmarks: that needs the write:upload scope." title="Not assigned" />
      ) : (
        <ErrorNotice error={saving.error} title="The benchmark could not be assigned" />
      )}
      <span className="visually-hidden" role="status">
        {announcement}
      </span>
    </form>
  );
}
