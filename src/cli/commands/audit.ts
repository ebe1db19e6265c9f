/** `audit:verify`: the audit log's hash chains (src/audit/verify.ts, docs/audit.md#verifying). */
import type { Command } from '../command.ts';
import { CommandError } from '../errors.ts';
import { output } from '../output.ts';

export const auditCommands: Record<string, Command> = {
  'audit:verify': {
    summary: "verify the audit log's hash chains; exit 1 at the first broken link of a chain",
    options: {},
    async run(ctx) {
      const { verifyAuditLog } = await import('../../audit/verify.ts');
      const db = await ctx.database();
      const report = await verifyAuditLog(db.pool);
      if (report.broken.length > 0) {
        const lines = report.broken.map((link) => `chain ${link.chain}: ${link.problem}`);
        throw new CommandError(`The audit log does not verify (${report.broken.length} of ${report.chains} chains broken):\n${lines.join('\n')}`);
      }
      return output(ctx.json, [`The audit log verifies: ${report.events} events in ${report.chains} chains`], { ok: true, ...report });
    },
  },
};
