import { useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { Panel } from '../../components/page.tsx';
import { Badge, toneOf } from '../../components/badge.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { Pager, useCursorPager } from '../../components/pager.tsx';
import { formatDate } from '../../components/format.ts';
import { COMPARISON_STATUSES, ComparisonQuery, type Comparison, type ComparisonStatus } from './queries.ts';
import { signedBps, signedPercent } from './format.ts';

const PAGE_SIZE = 25;

/** Custodian-reported daily returns next to the service's own, filtered by account and status. */
export function ComparisonPanel({ accountCodes, onChart }: { accountCodes: string[]; onChart: (row: Comparison) => void }) {
  const [accountInput, setAccountInput] = useState('');
  const [accountCode, setAccountCode] = useState('');
  const [status, setStatus] = useState<ComparisonStatus | ''>('');
  const pager = useCursorPager();
  const [{ data, error, fetching }] = useQuery({
    query: ComparisonQuery,
    variables: { accountCode: accountCode || null, status: status || null, first: PAGE_SIZE, after: pager.after },
  });
  const rows = data?.returnComparison.edges.map((edge) => edge.node) ?? [];
  const thresholds = rows[0];

  function applyAccount(event: FormEvent) {
    event.preventDefault();
    setAccountCode(accountInput.trim());
    pager.reset();
  }

  return (
    <Panel id="comparison" title="Custodian vs computed daily returns">
      <form className="form-row filters" onSubmit={applyAccount} role="search" aria-label="Filter the comparisons">
        <label>
          Account code
          <input
            value={accountInput}
            onChange={(event) => setAccountInput(event.target.value)}
            list="account-codes"
            placeholder="All accounts"
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <datalist id="account-codes">
          {accountCodes.map((code) => (
            <option key={code} value={code} />
          ))}
        </datalist>
        <label>
          Status
          <select
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as ComparisonStatus | '');
              setAccountCode(accountInput.trim());
              pager.reset();
            }}
          >
            <option value="">All statuses</option>
            {COMPARISON_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Apply</button>
        {(accountCode || status) && (
          <button
            type="button"
            className="button-secondary"
            onClick={() => {
              setAccountInput('');
              setAccountCode('');
              setStatus('');
              pager.reset();
            }}
          >
            Clear filters
          </button>
        )}
      </form>
      {thresholds && (
        <p className="hint">
          <Badge tone="success">match</Badge> within {Number(thresholds.matchThresholdBps)} bps, <Badge tone="warning">review</Badge> within{' '}
          {Number(thresholds.reviewThresholdBps)} bps, <Badge tone="danger">investigate</Badge> beyond that, when a side is missing, or when the signs differ.
          Difference = computed − custodian.
        </p>
      )}
      <ErrorNotice error={error} title="The comparisons could not be loaded" />
      {fetching && !data && <Loading label="Loading the comparisons…" />}
      {data && rows.length === 0 && (
        <EmptyState>
          {accountCode || status
            ? 'No comparisons match these filters.'
            : 'No custodian returns yet: upload a performance file (and the pnl file of the same accounts) on the Files page.'}
        </EmptyState>
      )}
      {rows.length > 0 && (
        <div className="table-wrap" tabIndex={0}>
          <table className="data stack comparison-table" aria-label="Custodian vs computed daily returns" aria-busy={fetching}>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Entity</th>
                <th scope="col">Account</th>
                <th scope="col" className="num">
                  Custodian
                </th>
                <th scope="col" className="num">
                  Computed
                </th>
                <th scope="col" className="num">
                  Difference (bps)
                </th>
                <th scope="col">Status</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.accountCode}|${row.date}`}>
                  <td data-label="Date" className="nowrap">
                    <time dateTime={row.date}>{formatDate(row.date)}</time>
                  </td>
                  <td className="entity">
                    <button type="button" className="link-button" onClick={() => onChart(row)} title="Chart its daily returns">
                      <span className="visually-hidden">Chart the daily returns of </span>
                      {row.entityName}
                    </button>
                  </td>
                  <td data-label="Account" className="nowrap">
                    {row.accountCode}
                  </td>
                  <td data-label="Custodian" className="num">
                    {signedPercent(row.custodianReturn)}
                  </td>
                  <td data-label="Computed" className="num">
                    {signedPercent(row.computedReturn)}
                  </td>
                  <td data-label="Diff. (bps)" className="num">
                    {signedBps(row.differenceBps)}
                  </td>
                  <td data-label="Status">
                    <Badge tone={toneOf(row.status)}>{row.status}</Badge>
                  </td>
                  <td data-label="Reason" className="reason">
                    {row.reason}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} pageInfo={data?.returnComparison.pageInfo} label="Comparisons" />
    </Panel>
  );
}
