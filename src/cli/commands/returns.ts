/** `returns:benchmark`: an entity's benchmark (docs/returns-and-csv.md#benchmarks), through the service the API uses. */
import type { Command, Values } from '../command.ts';
import { CommandError, UsageError } from '../errors.ts';
import { load } from '../load.ts';
import { output } from '../output.ts';

export const returnsCommands: Record<string, Command> = {
  'returns:benchmark': {
    summary: "set or clear an entity's benchmark",
    options: { entity: { type: 'string' }, benchmark: { type: 'string' }, clear: { type: 'boolean' }, org: { type: 'string' } },
    required: ['entity'],
    async run(ctx) {
      const benchmark = parseBenchmark(ctx.values);
      const entityName = String(ctx.values.entity);
      const db = await ctx.database();
      const orgName = ctx.values.org === undefined ? null : String(ctx.values.org).trim();
      let orgIds: Set<string>;
      if (orgName === null) {
        // The operator acts for every organization; an entity name found in several needs --org.
        orgIds = new Set((await db.pool.query<{ id: string }>(`SELECT id FROM "Organization"`)).rows.map((row) => row.id));
      } else {
        const org = await db.prisma.organization.findUnique({ where: { name: orgName } });
        if (!org) throw new CommandError(`Organization "${orgName}" not found`);
        orgIds = new Set([org.id]);
      }
      const [{ EntityBenchmarks }, { AppError }] = await Promise.all([load.entityBenchmarks(), load.errors()]);
      let entity;
      try {
        entity = await new EntityBenchmarks(db.pool).assign({ orgIds, entityName, benchmark });
      } catch (error) {
        const where = orgName === null ? '' : ` in "${orgName}"`;
        if (error instanceof AppError && error.code === 'NOT_FOUND') throw new CommandError(`Entity "${entityName.trim()}" not found${where}`);
        if (error instanceof AppError && error.extensions.field === 'entityName' && orgName === null) {
          throw new CommandError(`${error.message}: give --org`);
        }
        throw error;
      }
      const line = `${entity.entityName} (${entity.accountCode}): ${entity.benchmark === null ? 'no benchmark' : `benchmark "${entity.benchmark}"`}`;
      return output(ctx.json, [line], { entity });
    },
    audit: (data) => {
      const entity = data.entity as { id: string; organizationId: string };
      return { target: { type: 'Entity', id: entity.id }, organizationId: entity.organizationId };
    },
  },
};

/** --benchmark NAME, or --clear alone (null). */
function parseBenchmark(values: Values): string | null {
  if (values.clear) {
    if (values.benchmark !== undefined) throw new UsageError('--clear takes no --benchmark');
    return null;
  }
  if (values.benchmark === undefined) throw new UsageError('Give --benchmark NAME, or --clear');
  return String(values.benchmark);
}
