import { array, single, type RestRoute } from '../route.ts';

/**
 * An entity's benchmark (docs/returns-and-csv.md#benchmarks): assigning it (scope write:upload)
 * and the organizations' benchmark series (read:returns). The comparisons themselves are on
 * /api/returns/periods and /api/returns/calendar.
 */
export const returnsBenchmarkRoutes: RestRoute[] = [
  {
    method: 'PUT',
    path: '/api/returns/benchmark',
    summary:
      'Give an entity (`entity_name`) a benchmark: `benchmark` is the name of a series uploaded to its organization (file_type=benchmark), or null to remove it; answers the entity with its benchmark. The period and calendar returns then compare with it.',
    body: 'json',
    operation: `mutation SetEntityBenchmark($entityName: String!, $benchmark: String) {
      setEntityBenchmark(entityName: $entityName, benchmark: $benchmark) { id organizationId entityName accountCode benchmark } }`,
    respond: single('setEntityBenchmark'),
  },
  {
    method: 'GET',
    path: '/api/returns/benchmarks',
    summary: 'The benchmark series uploaded to your organizations (`org_id`: one of them), by organization and name: name, first and last date, level count.',
    params: { org_id: 'organizationId' },
    operation: `query BenchmarkSeries($organizationId: UUID) {
      benchmarkSeries(organizationId: $organizationId) { organizationId name firstDate lastDate levelCount } }`,
    respond: array('benchmarkSeries'),
  },
];
