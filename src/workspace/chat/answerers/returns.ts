import type pg from 'pg';
import type { ReturnsService } from '../../../returns/returns-service.ts';
import type { Intent } from '../intent.ts';
import { DASHBOARD, mdLink } from '../links.ts';
import { describeEntity, entitiesOf, resolveEntity, unresolvedWords } from './entities.ts';
import { lacksScope, OFFLINE_LIMITS, percent, type Answerer, type Asker } from './types.ts';
import { plural } from '../../../util/plural.ts';

type ReturnsIntent = Extract<Intent, { kind: 'returns' }>;

/**
 * "What is the time-weighted return of Harbor Growth Fund LP this year?": the figures come from
 * ReturnsService.dietzDaily, the function behind GET /api/returns/dietz-daily and the GraphQL
 * dietzDailyReturns query, so the chat and the API always agree. Needs read:returns.
 */
export class ReturnsAnswerer implements Answerer<'returns'> {
  readonly kind = 'returns' as const;

  constructor(private readonly deps: { pool: pg.Pool; returns: ReturnsService }) {}

  async answer(intent: ReturnsIntent, asker: Asker): Promise<string> {
    const refused = lacksScope(asker, 'read:returns', 'returns');
    if (refused) return `${refused}\n\n${OFFLINE_LIMITS}`;
    const entities = await entitiesOf(this.deps.pool, await asker.orgIds());
    const resolution = resolveEntity(entities, asker.message, intent.subject);
    const unresolved = unresolvedWords(resolution, intent.subject, (e) => `What is the time-weighted return of ${e.accountCode} ${intent.period.label}?`);
    if (unresolved || resolution.kind !== 'one') return `${unresolved}\n\n${mdLink('Open Returns', DASHBOARD.returns)}\n\n${OFFLINE_LIMITS}`;
    const entity = resolution.entity;
    const { period } = intent;

    const result = await this.deps.returns.dietzDaily({
      orgIds: new Set([entity.orgId]),
      entityName: entity.entityName,
      startDate: period.start,
      endDate: period.end,
    });
    const coverage = await this.coverage(entity.id);
    const range = `from the close of ${period.start} to ${period.end}`;
    const lines = [`${describeEntity(entity)}, ${period.label}${period.assumed ? ' (you named no period)' : ''}: ${range}`];

    const twr = result.timeWeightedReturn;
    const mwr = result.modifiedDietzReturn;
    const days = result.days.length;
    if (days === 0) {
      lines.push(
        coverage
          ? `- No daily returns in this period: the data for this account covers ${coverage.first} to ${coverage.last}. Ask for a period within it, e.g. "${entity.accountCode} from ${coverage.first} to ${coverage.last}".`
          : '- This account has no daily returns yet: upload its valuations (a pnl file) first.',
      );
    } else {
      const first = result.days[0].startDate;
      const last = result.days.at(-1)!.date;
      if (intent.measure !== 'money-weighted') {
        lines.push(
          twr.value !== null
            ? `- Time-weighted return: ${percent(twr.value)} (the daily Modified Dietz returns of ${plural(days, 'day')}, ${first} to ${last}, linked geometrically)`
            : `- Time-weighted return: not available (${twr.nullReason})`,
        );
      }
      if (intent.measure !== 'time-weighted') {
        lines.push(
          mwr.value !== null
            ? `- Modified Dietz (money-weighted) return: ${percent(mwr.value)} (one Modified Dietz calculation over the whole period)`
            : `- Modified Dietz (money-weighted) return: not available (${mwr.nullReason})`,
        );
      }
      if (coverage && coverage.first > period.start) lines.push(`- The data for this account begins on ${coverage.first}: the figures start there.`);
      if (coverage && coverage.last < period.end) lines.push(`- The latest valuation is on ${coverage.last}: the figures end there.`);
      lines.push('- Not annualized.');
    }
    lines.push(
      '',
      `See the daily returns and the chart on the ${mdLink('Returns', DASHBOARD.returns)} page (enter ${entity.entityName} under "Daily returns of an entity"), ` +
        `or the API: \`GET /api/returns/dietz-daily?entity_name=${encodeURIComponent(entity.entityName)}&start_date=${period.start}&end_date=${period.end}\`.`,
      '',
      OFFLINE_LIMITS,
    );
    return lines.join('\n');
  }

  private async coverage(entityId: string): Promise<{ first: string; last: string } | null> {
    const { rows } = await this.deps.pool.query<{ first: string | null; last: string | null }>(
      `SELECT min("startDate")::text AS first, max(date)::text AS last FROM "DailyReturn" WHERE "entityId" = $1`,
      [entityId],
    );
    return rows[0]?.first && rows[0]?.last ? { first: rows[0].first, last: rows[0].last } : null;
  }
}
