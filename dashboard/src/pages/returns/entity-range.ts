import type { DietzVariables } from './queries.ts';
import { addDays } from './format.ts';

/** An entity the comparisons name, with the dates they cover. */
export interface EntityRange {
  entityName: string;
  accountCode: string;
  first: string;
  last: string;
}

/**
 * A week before the first compared date, so the valuation the first daily return starts from
 * (the previous business day, maybe across a weekend) is inside the range.
 */
export function defaultRange(entity: EntityRange): DietzVariables {
  return { entityName: entity.entityName, startDate: addDays(entity.first, -7), endDate: entity.last };
}
