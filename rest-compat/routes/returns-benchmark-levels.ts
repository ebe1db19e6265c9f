import { single, type RestRoute } from '../route.ts';

/** The benchmark line beside an entity's daily returns (docs/returns-and-csv.md#reported-returns). */
export const returnsBenchmarkLevelsRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/returns/benchmark-levels',
    summary:
      'The levels of the benchmark assigned to `entity_name` from the latest level on or before `start_date` up to `end_date`, each with its cumulative return since that level (`benchmark` null and no points when none is assigned); the range may span at most 3660 days, as for /api/returns/dietz-daily.',
    operation: `query BenchmarkLevels($entityName: String!, $startDate: Date!, $endDate: Date!) {
      benchmarkLevels(entityName: $entityName, startDate: $startDate, endDate: $endDate) {
        entityName accountCode benchmark nullReason startDate endDate baseDate baseLevel points { date level cumulativeReturn }
      } }`,
    respond: single('benchmarkLevels'),
  },
];
