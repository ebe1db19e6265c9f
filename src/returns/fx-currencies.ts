/**
 * The currencies an entity's returns can be reported in (docs/returns-and-csv.md#currencies): those
 * one uploaded pair (file_type=fx) away from the entity's own currency, in either direction, in the
 * entity's organization. No triangulation: a currency reachable only through a third one is not
 * listed, as the conversion (./currency-service.ts) would refuse it. The entity's own currency is
 * not listed (it needs no rate).
 */
import type pg from 'pg';
import { findEntity } from './returns-service.ts';

type Scope = { orgIds: ReadonlySet<string> };

export interface EntityCurrencies {
  entityName: string;
  accountCode: string;
  /** the entity's own currency (its returns need no rate in it) */
  localCurrency: string;
  /** ISO 4217 codes one uploaded pair away from localCurrency, sorted, without it */
  currencies: string[];
}

export class ReturnCurrencies {
  constructor(private readonly pool: pg.Pool) {}

  /** An unknown entity (or another organization's) is not found. */
  async forEntity(scope: Scope & { entityName: string }): Promise<EntityCurrencies> {
    const entity = await findEntity(this.pool, scope.orgIds, scope.entityName);
    const { rows } = await this.pool.query<{ currency: string }>(
      `SELECT DISTINCT CASE WHEN base = $2 THEN quote ELSE base END AS currency
         FROM "FxRate" WHERE "orgId" = $1 AND (base = $2 OR quote = $2) AND base <> quote
        ORDER BY 1`,
      [entity.orgId, entity.currency],
    );
    return { entityName: entity.entityName, accountCode: entity.accountCode, localCurrency: entity.currency, currencies: rows.map((row) => row.currency) };
  }
}
