import { useMemo } from 'react';
import { useQuery, type CombinedError } from 'urql';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { formatDate } from '../../components/format.ts';
import { useViewer } from '../../viewer.tsx';
import { CashTransactionsQuery, DietzQuery, type CashTransaction, type DietzVariables, type PeriodReturn } from './queries.ts';
import { formatMoney, signedPercent } from './format.ts';
import { toSeries, type ReturnDay } from './series.ts';
import { DietzChart } from './dietz-chart.tsx';
import type { EntityRange } from './entity-range.ts';
import { BENCHMARK_READS, BenchmarkLevelsQuery } from './analytics-queries.ts';
import { benchmarkSeries, type BenchmarkLine } from './benchmark-series.ts';

/** The most cash flows read for the descriptions (the API's largest page). */
const FLOWS_READ = 1000;

export function DietzResults({ variables, known }: { variables: DietzVariables; known: EntityRange | undefined }) {
  const viewer = useViewer();
  const canReadFlows = viewer.scopes.includes('read:pnl') || viewer.scopes.includes('admin');
  const [{ data, error, fetching }] = useQuery({ query: DietzQuery, variables });
  const [flowsResult] = useQuery({ query: CashTransactionsQuery, variables: { entityName: variables.entityName, first: FLOWS_READ }, pause: !canReadFlows });
  const result = data?.dietzDailyReturns;
  const days = useMemo(() => toSeries(result?.days ?? []), [result]);
  // The assigned benchmark over the chart's dates: from its level at the close the first daily return starts from.
  const span = days.length > 0 ? { startDate: days[0].startDate, endDate: days[days.length - 1].date } : null;
  const [benchmarkResult] = useQuery({
    query: BenchmarkLevelsQuery,
    variables: { entityName: variables.entityName, startDate: span?.startDate ?? variables.startDate, endDate: span?.endDate ?? variables.endDate },
    pause: !span,
    context: BENCHMARK_READS,
  });
  const benchmark = useMemo<BenchmarkLine | null>(() => benchmarkSeries(days, benchmarkResult.data?.benchmarkLevels), [days, benchmarkResult.data]);
  const flows = useMemo(() => {
    const first = days[0];
    const last = days[days.length - 1];
    const all = flowsResult.data?.cashTransactions.edges.map((edge) => edge.node) ?? [];
    return first && last ? all.filter((flow) => flow.date > first.startDate && flow.date <= last.date).sort((a, b) => a.date.localeCompare(b.date)) : [];
  }, [days, flowsResult.data]);

  const range = `${formatDate(variables.startDate)} to ${formatDate(variables.endDate)}`;
  if (error) return <ErrorNotice error={explain(error, variables.entityName)} title={`The returns of ${variables.entityName} could not be loaded`} />;
  if (fetching && !result) return <Loading label={`Loading the daily returns of ${variables.entityName}…`} />;
  if (!result) return null;
  if (days.length === 0) {
    return (
      <EmptyState>
        {result.entityName} ({result.accountCode}) has no daily returns from {range}.
        {known
          ? ` Its compared returns run from ${formatDate(known.first)} to ${formatDate(known.last)}.`
          : ' Choose a range with at least two daily valuations.'}
      </EmptyState>
    );
  }

  const first = days[0];
  const last = days[days.length - 1];
  const flowDays = days.filter((day) => day.netFlow !== 0);
  const netFlows = flowDays.reduce((sum, day) => sum + day.netFlow, 0);
  const chartLabel =
    `Chart of the daily Modified Dietz returns of ${result.entityName} from ${formatDate(first.startDate)} to ${formatDate(last.date)}: ` +
    `${days.length} daily returns as bars, the cumulative linked return as a line ending at ${signedPercent(last.cumulative, 2)}, ` +
    `${flowDays.length} ${flowDays.length === 1 ? 'day' : 'days'} with cash flows marked` +
    (benchmark ? `, and the cumulative return of the benchmark ${benchmark.name} as a dashed line ending at ${signedPercent(benchmark.last, 2)}` : '') +
    '. The figures are in the table below the chart.';

  return (
    <div className="dietz-results" aria-busy={fetching}>
      <p className="results-heading">
        <strong>{result.entityName}</strong> <span className="tag">{result.accountCode}</span> valuations from {formatDate(first.startDate)} to{' '}
        {formatDate(last.date)}
      </p>
      <div className="cards period-cards">
        <Figure title="Time-weighted return (linked daily Modified Dietz)" period={result.timeWeightedReturn} annualized={result.annualized} />
        <Figure title="Money-weighted return (Modified Dietz over the period)" period={result.modifiedDietzReturn} annualized={result.annualized} />
        <div className="card stat">
          <span className="stat-label">Cash flows in the period</span>
          <span className="stat-value">{formatMoney(netFlows, true)}</span>
          <span className="hint">
            net, on {flowDays.length} of {days.length} days
          </span>
        </div>
      </div>
      <DietzChart days={days} flows={flows} benchmark={benchmark} label={chartLabel} />
      <p className="hint chart-legend-note">
        <span className="flow-key" aria-hidden="true">
          ▲
        </span>{' '}
        inflow,{' '}
        <span className="flow-key" aria-hidden="true">
          ▼
        </span>{' '}
        outflow on the cumulative line; hover or focus the chart for each day’s figures.
        {benchmark && (
          <span className="benchmark-key">
            {' '}
            <span className="benchmark-swatch" aria-hidden="true" /> Benchmark: {benchmark.name}, its cumulative return from its level of{' '}
            {formatDate(benchmark.baseDate)} (the last one published on or before {formatDate(span?.startDate ?? variables.startDate)}), ending at{' '}
            {signedPercent(benchmark.last, 2)}.
          </span>
        )}
        {!benchmark && benchmarkResult.data?.benchmarkLevels.nullReason && ` No benchmark line: ${benchmarkResult.data.benchmarkLevels.nullReason}.`}
      </p>
      {benchmarkResult.error && (
        <p className="notice notice-warning">
          <strong>No benchmark line: </strong>
          {benchmarkResult.error.graphQLErrors[0]?.message ?? benchmarkResult.error.message}
        </p>
      )}
      <ErrorNotice error={flowsResult.error} title="The cash flow descriptions could not be loaded" />
      {flows.length > 0 && <CashFlows flows={flows} />}
      <details className="daily-figures">
        <summary>Daily figures ({days.length} days)</summary>
        <DailyTable days={days} />
      </details>
    </div>
  );
}

function Figure({ title, period, annualized }: { title: string; period: PeriodReturn; annualized: boolean }) {
  return (
    <div className="card stat">
      <span className="stat-label">{title}</span>
      <span className="stat-value">{period.value === null ? 'Undefined' : signedPercent(period.value, 4)}</span>
      {period.nullReason && <span className="notice notice-warning">{period.nullReason}</span>}
      <span className="hint">
        {period.method}; {period.weighting}, {annualized ? 'annualized' : 'for the whole period, not annualized'}.
      </span>
    </div>
  );
}

function CashFlows({ flows }: { flows: CashTransaction[] }) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table className="data">
        <caption className="table-caption">Cash flows</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col" className="num">
              Amount
            </th>
            <th scope="col">Timing</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {flows.map((flow) => (
            <tr key={flow.id}>
              <td className="nowrap">{formatDate(flow.date)}</td>
              <td className="num">{formatMoney(flow.amount, true)}</td>
              <td className="nowrap">{flow.timing.replaceAll('_', ' ')}</td>
              <td>{flow.description ?? <span className="hint">none</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DailyTable({ days }: { days: ReturnDay[] }) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table className="data">
        <caption className="visually-hidden">Daily Modified Dietz returns</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">From</th>
            <th scope="col" className="num">
              Begin value
            </th>
            <th scope="col" className="num">
              End value
            </th>
            <th scope="col" className="num">
              Net cash flow
            </th>
            <th scope="col" className="num">
              Daily return
            </th>
            <th scope="col" className="num">
              Cumulative
            </th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <th scope="row" className="nowrap">
                {formatDate(day.date)}
              </th>
              <td className="nowrap">{formatDate(day.startDate)}</td>
              <td className="num">{formatMoney(day.beginValue)}</td>
              <td className="num">{formatMoney(day.endValue)}</td>
              <td className="num">{day.netFlow === 0 ? '—' : formatMoney(day.netFlowText, true)}</td>
              <td className="num" title={day.nullReason ?? undefined}>
                {day.value === null ? `undefined (${day.nullReason ?? 'no reason given'})` : signedPercent(day.value)}
              </td>
              <td className="num">{signedPercent(day.cumulative)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "Entity not found" says more with the name and what to do. */
function explain(error: CombinedError, entityName: string): CombinedError | string {
  const code = error.graphQLErrors[0]?.extensions?.code;
  if (code === 'NOT_FOUND') return `No entity named “${entityName}” in your organizations. Choose one of the suggested names, or upload its pnl file first.`;
  return error;
}
