import type pg from 'pg';
import type { ComparisonRow, ReturnsService } from '../../../returns/returns-service.ts';
import { PAGE_SIZES } from '../../../pagination.ts';
import type { Intent } from '../intent.ts';
import { DASHBOARD, mdLink } from '../links.ts';
import { describeEntity, entitiesOf, resolveEntity, unresolvedWords } from './entities.ts';
import { lacksScope, OFFLINE_LIMITS, percent, type Answerer, type Asker } from './types.ts';
import { plural } from '../../../util/plural.ts';

type ComparisonsIntent = Extract<Intent, { kind: 'comparisons' }>;

/** Most comparison rows read for one answer (pages of 500). */
const MAX_ROWS = 20_000;

/**
 * "How many returns of DC-1001 match the custodian?": counts of match / review / investigate
 * from ReturnsService.comparison, the function behind GET /api/returns/comparison. Needs read:returns.
 */
export class ComparisonsAnswerer implements Answerer<'comparisons'> {
  readonly kind = 'comparisons' as const;

  constructor(private readonly deps: { pool: pg.Pool; returns: ReturnsService }) {}

  async answer(intent: ComparisonsIntent, asker: Asker): Promise<string> {
    const refused = lacksScope(asker, 'read:returns', 'custodian comparisons');
    if (refused) return `${refused}\n\n${OFFLINE_LIMITS}`;
    const entities = await entitiesOf(this.deps.pool, await asker.orgIds());
    const resolution = resolveEntity(entities, asker.message, intent.subject);
    const unresolved = unresolvedWords(resolution, intent.subject, (e) => `How many custodian returns match for ${e.accountCode}?`);
    if (unresolved || resolution.kind !== 'one') return `${unresolved}\n\n${mdLink('Open Returns', DASHBOARD.returns)}\n\n${OFFLINE_LIMITS}`;
    const entity = resolution.entity;

    const rows: ComparisonRow[] = [];
    let cursor: string | null = null;
    let truncated = false;
    for (;;) {
      const page = await this.deps.returns.comparison({
        orgIds: new Set([entity.orgId]),
        accountCode: entity.accountCode,
        limit: PAGE_SIZES.returnComparison.max,
        cursor,
      });
      rows.push(...page.rows);
      if (!page.hasMore) break;
      if (rows.length >= MAX_ROWS) {
        truncated = true;
        break;
      }
      cursor = page.nextCursor;
    }
    const period = intent.period;
    const inPeriod = period ? rows.filter((row) => row.date > period.start && row.date <= period.end) : rows;
    const count = (status: ComparisonRow['status']) => inPeriod.filter((row) => row.status === status).length;
    const [match, review, investigate] = [count('match'), count('review'), count('investigate')];
    const where = period ? ` from ${period.start} (exclusive) to ${period.end} (${period.label})` : '';
    const lines = [`Custodian vs computed daily returns of ${describeEntity(entity)}${where}:`];
    if (inPeriod.length === 0) {
      lines.push(
        rows.length === 0 ? '- The custodian reports no returns for this account yet (upload a performance file).' : '- No comparisons in this period.',
      );
    } else {
      const first = inPeriod.at(-1)!.date;
      const last = inPeriod[0].date;
      const thresholds = inPeriod[0];
      lines.push(
        `- ${plural(inPeriod.length, 'day')} compared, ${first} to ${last}${truncated ? ` (the newest ${rows.length.toLocaleString('en-US')} only)` : ''}`,
        `- match: ${match} (within ${Number(thresholds.matchThresholdBps)} bp)`,
        `- review: ${review} (within ${Number(thresholds.reviewThresholdBps)} bp)`,
        `- investigate: ${investigate} (a larger difference, a missing side or a sign flip)`,
      );
      const worst = inPeriod.filter((row) => row.status === 'investigate').slice(0, 3);
      if (worst.length > 0) {
        lines.push('', 'The newest to investigate:');
        for (const row of worst) {
          const custodian = row.custodianReturn === null ? 'none' : percent(row.custodianReturn);
          const computed = row.computedReturn === null ? 'none' : percent(row.computedReturn);
          const difference = row.differenceBps === null ? '' : `, difference ${Number(row.differenceBps).toFixed(2)} bp`;
          lines.push(`- ${row.date}: custodian ${custodian}, computed ${computed}${difference}`);
        }
      }
    }
    lines.push(
      '',
      `See every day on the ${mdLink('Returns', DASHBOARD.returns)} page (filter "Custodian vs computed daily returns" by ${entity.accountCode}), ` +
        `or the API: \`GET /api/returns/comparison?account_code=${encodeURIComponent(entity.accountCode)}\`.`,
      '',
      OFFLINE_LIMITS,
    );
    return lines.join('\n');
  }
}
