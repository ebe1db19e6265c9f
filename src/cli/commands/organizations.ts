/** `org:thresholds`: an organization's comparison thresholds. */
import type { Command, Values } from '../command.ts';
import { CommandError, UsageError } from '../errors.ts';
import { load } from '../load.ts';
import { output } from '../output.ts';

export const organizationCommands: Record<string, Command> = {
  'org:thresholds': {
    summary: "set an organization's comparison thresholds",
    options: { org: { type: 'string' }, match: { type: 'string' }, review: { type: 'string' }, clear: { type: 'boolean' } },
    required: ['org'],
    async run(ctx) {
      const thresholds = parseThresholds(ctx.values);
      const db = await ctx.database();
      const name = String(ctx.values.org).trim();
      const org = await db.prisma.organization.findUnique({ where: { name } });
      if (!org) throw new CommandError(`Organization "${name}" not found`);
      const { ReconciliationService } = await load.reconciliation();
      const { changed } = await new ReconciliationService(db.pool, ctx.config.comparison).setThresholds(org.id, thresholds);
      const inForce = {
        matchBps: thresholds.matchBps ?? ctx.config.comparison.matchBps,
        reviewBps: thresholds.reviewBps ?? ctx.config.comparison.reviewBps,
      };
      const whose = thresholds.matchBps === null ? "the service's" : 'its own';
      return output(
        ctx.json,
        [
          `${org.name}: match ${inForce.matchBps} bps, review ${inForce.reviewBps} bps (${whose}); ${changed} comparison row${changed === 1 ? '' : 's'} re-classified`,
        ],
        { org: { id: org.id, name: org.name }, ...inForce, own: thresholds.matchBps !== null, reclassified: changed },
      );
    },
    audit: (data) => {
      const org = data.org as { id: string };
      return { target: { type: 'Organization', id: org.id }, organizationId: org.id };
    },
  },
};

/** --match and --review (both, 0 <= match <= review), or --clear alone (both null). */
function parseThresholds(values: Values): { matchBps: number | null; reviewBps: number | null } {
  if (values.clear) {
    if (values.match !== undefined || values.review !== undefined) throw new UsageError('--clear takes no --match or --review');
    return { matchBps: null, reviewBps: null };
  }
  if (values.match === undefined || values.review === undefined) throw new UsageError('Give both --match and --review, or --clear');
  const read = (flag: 'match' | 'review') => {
    const text = String(values[flag]).trim();
    const bps = Number(text);
    if (text === '' || !Number.isFinite(bps) || bps < 0 || bps >= 1e8) throw new UsageError(`Invalid --${flag}: a number of basis points, 0 or more`);
    return bps;
  };
  const matchBps = read('match');
  const reviewBps = read('review');
  if (matchBps > reviewBps) throw new UsageError('Invalid thresholds: --match must not exceed --review');
  return { matchBps, reviewBps };
}
