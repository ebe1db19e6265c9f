/**
 * The modules only some commands need, loaded when they run: the database, Prisma, zod and GraphQL
 * (AppError) modules are not loaded at all for `help` and usage errors, so those answer at once.
 * Command modules import statically only types and modules without imports of their own (auth/scopes.ts),
 * and everything else through here.
 */
export const load = {
  config: () => import('../config.ts'),
  database: () => import('../db/database.ts'),
  embedded: () => import('../db/embedded.ts'),
  migrator: () => import('../db/migrator.ts'),
  apiKeys: () => import('../auth/api-keys.ts'),
  passwords: () => import('../auth/passwords.ts'),
  organizations: () => import('../organizations.ts'),
  transcripts: () => import('../workspace/transcripts/transcript-service.ts'),
  transcriptParsers: () => import('../workspace/transcripts/parsers.ts'),
  app: () => import('../../server/app.ts'),
  log: () => import('../log.ts'),
  seed: () => import('../seed/demo-seed.ts'),
  reconciliation: () => import('../returns/reconciliation.ts'),
  entityBenchmarks: () => import('../returns/benchmark-service.ts'),
  errors: () => import('../errors.ts'),
  auditRecorder: () => import('../audit/recorder.ts'),
  auditRedaction: () => import('../audit/redaction.ts'),
};
