import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { Page } from '../components/page.tsx';
import { ErrorNotice } from '../components/notice.tsx';
import { ENTITY_SCAN, EntityScanQuery, type Comparison } from './returns/queries.ts';
import { ComparisonPanel } from './returns/comparison-panel.tsx';
import { EntityReturnsPanel } from './returns/entity-returns.tsx';
import type { EntityRange } from './returns/entity-range.ts';
import './returns.css';

export default function ReturnsPage() {
  const [scan] = useQuery({ query: EntityScanQuery, variables: { first: ENTITY_SCAN } });
  const [request, setRequest] = useState<{ entityName: string; nonce: number } | null>(null);
  const entities = useMemo(() => entityRanges(scan.data?.returnComparison.edges.map((edge) => edge.node) ?? []), [scan.data]);
  const accountCodes = useMemo(() => [...new Set(entities.map((e) => e.accountCode))].sort(), [entities]);

  return (
    <Page
      title="Returns"
      intro="Custodian-reported daily returns checked against the service's own Modified Dietz returns, and an entity's daily returns over a period."
    >
      <ErrorNotice error={scan.error} title="The entity suggestions could not be loaded" />
      <ComparisonPanel accountCodes={accountCodes} onChart={(row: Comparison) => setRequest({ entityName: row.entityName, nonce: Date.now() })} />
      <EntityReturnsPanel entities={entities} request={request} />
    </Page>
  );
}

/** Entities named by the (newest) comparisons, by name, with the dates they cover. */
function entityRanges(rows: Pick<Comparison, 'entityName' | 'accountCode' | 'date'>[]): EntityRange[] {
  const byName = new Map<string, EntityRange>();
  for (const row of rows) {
    const seen = byName.get(row.entityName);
    if (!seen) byName.set(row.entityName, { entityName: row.entityName, accountCode: row.accountCode, first: row.date, last: row.date });
    else {
      if (row.date < seen.first) seen.first = row.date;
      if (row.date > seen.last) seen.last = row.date;
    }
  }
  return [...byName.values()].sort((a, b) => a.entityName.localeCompare(b.entityName));
}
