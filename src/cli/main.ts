/**
 * The operators' CLI: `npm run cli -- <command> [options]` (see USAGE below).
 *
 * Database access: `openDatabase({ mode: 'attach' })`. While the service runs on the embedded
 * database the CLI connects to its local socket (DATA_DIR/pglite.lock) and never opens the data
 * directory itself; when no service runs, the CLI owns the directory for the duration of the
 * command (a service started meanwhile refuses to start until it is done) and applies pending
 * migrations first. With DATABASE_URL it talks to PostgreSQL, and commands other than db:migrate
 * refuse to run on a database with unapplied migrations.
 *
 * Output: human-readable text on stdout, or with `--json` exactly one JSON object on stdout and
 * nothing else. `key:create` / `token:create` print the new secret alone on the last stdout line. Errors go to
 * stderr: exit code 1 for a failed command, 2 for a usage error. Secrets (passwords, keys) are
 * never written to logs or stderr.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { SCOPES } from '../auth/scopes.ts';

// The database, Prisma, zod and GraphQL (AppError) modules are loaded only by the commands that
// need them, so that `help` and usage errors answer at once.
const load = {
  config: () => import('../config.ts'),
  database: () => import('../db/database.ts'),
  embedded: () => import('../db/embedded.ts'),
  migrator: () => import('../db/migrator.ts'),
  apiKeys: () => import('../auth/api-keys.ts'),
  passwords: () => import('../auth/passwords.ts'),
  organizations: () => import('../organizations.ts'),
  transcripts: () => import('../workspace/transcripts/transcript-service.ts'),
  app: () => import('../../server/app.ts'),
  log: () => import('../log.ts'),
  seed: () => import('../seed/demo-seed.ts'),
  reconciliation: () => import('../returns/reconciliation.ts'),
};

export const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  user:create --email E [--name N] [--org NAME] [--admin] [--password P | --password-stdin]
        Create a user, or update the name/role/password of an existing one; with --org,
        create that organization if needed and make the user a member. Prints the ids.
        --admin gives the admin role (an existing admin is never demoted by this command).
        --password-stdin reads the password from the first line of stdin (preferred:
        --password leaves it in the shell history). Passwords need at least 12 characters.
        Without a password the user can only use API keys or the SSO cookie.
  key:create --email E --scopes s1,s2 [--name N] [--expires-in 30d]
        Create an API key for the user. Scopes: ${SCOPES.join(', ')}
        (admin implies the others and needs a user with the admin role). --expires-in takes
        90m, 12h, 30d, 2w or an ISO timestamp; default: never. The key is shown once, alone
        on the last stdout line.
  key:revoke --prefix P
        Revoke the key with this visible prefix (sk_ and 8 hex characters; see key:list).
  key:list --email E
        List a user's keys: prefix, name, scopes, state, created, expires, last used.
  token:create --email E [--scopes s1,s2] [--name N] [--expires-in 30d]
        Create a personal access token (pat_...) for Authorization: Bearer, e.g. for the
        JSON-RPC tool endpoint /api/service. Scopes as for keys; default: every scope of the
        user's role except admin. Shown once, alone on the last stdout line.
  token:revoke --prefix P
        Revoke the access token with this visible prefix (pat_ and 8 hex characters).
  token:list --email E
        List a user's access tokens, as key:list does for keys.
  org:thresholds --org NAME (--match BPS --review BPS | --clear)
        Set an organization's comparison thresholds in basis points (inclusive; 0 <= match <=
        review), or with --clear go back to the service's (COMPARISON_MATCH_BPS/_REVIEW_BPS).
        The organization's comparison rows are re-classified in the same transaction.
  db:migrate
        Apply the pending migrations of prisma/migrations and report what was applied.
  db:url
        Print the database connection URL (e.g. psql "$(npm run -s cli -- db:url)"). For the
        embedded database this is the running service's local socket.
  seed:demo
        Seed the demo (what the first start on the embedded database seeds): organizations
        "Demo Capital" and "Northwind Advisors", admin@demo.local and analyst@demo.local with
        random passwords, an admin API key, 13 months of returns data and a workspace. For
        PostgreSQL, where the service does not seed. Prints the credentials once. Does nothing
        when admin@demo.local exists (a second run says the demo exists).
  demo:credentials
        New credentials for the demo, for when its block was lost (it is shown once): new
        random passwords for admin@demo.local and analyst@demo.local and a new admin API key,
        printed in the same block. Earlier keys keep working (key:revoke them). Fails when
        the demo was never seeded in this database.
  transcript:import --email E --file F [--format vtt|srt|json] [--title T] [--occurred-at ISO]
        Import a meeting transcript (WebVTT, SRT or the JSON format of docs/workspace.md) for
        the user, as the importTranscript mutation does. --format defaults to the file extension;
        --title to the title in the file, else the file name; --occurred-at to JSON
        occurred_at, else now. Limits: 5 MB, 20,000 sentences. Needs the builtin provider.
  help
        Show this text.

Options for every command:
  --json    Print exactly one JSON object on stdout (nothing else).
  --help    Show this text.

In scripts use "npm run -s cli -- ..." (or "npx tsx src/cli/main.ts ..."): without -s, npm
prints its own banner lines on stdout before the command's output.

Environment: DATABASE_URL (PostgreSQL) or DATA_DIR (embedded database, default ./data), as
for the service. Works while the service runs on the same DATA_DIR: the CLI then connects
to the service's local database socket.

Exit codes: 0 success, 1 the command failed, 2 usage error.`;

/** A problem with the command line itself: exit code 2. */
export class UsageError extends Error {}

/** A failed command with a message for the operator: exit code 1. */
class CommandError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Output {
  json: boolean;
  /** human-readable lines (ignored with --json) */
  lines: string[];
  /** the JSON object (--json) */
  data: Record<string, unknown>;
}

interface CommandContext {
  values: Values;
  config: Config;
  json: boolean;
  /** opens the database (attach mode), migrating first when this process owns it */
  database(options?: { poolSize?: number }): Promise<Database>;
  stdin(): Promise<string>;
  warn(message: string): void;
}

interface Command {
  summary: string;
  options: Options;
  required?: string[];
  run(ctx: CommandContext): Promise<Output>;
}

const MIN_PASSWORD_LENGTH = 12;

/** What differs between API keys (`key:*`) and personal access tokens (`token:*`). */
const CREDENTIAL_CLI = {
  api_key: { command: 'key', label: 'API key', plural: 'API keys', tag: 'sk_', usage: 'Send it in the x-api-key header:', scopesRequired: true },
  access_token: {
    command: 'token',
    label: 'access token',
    plural: 'access tokens',
    tag: 'pat_',
    usage: 'Send it as Authorization: Bearer <token> (e.g. to the JSON-RPC tool endpoint /api/service):',
    scopesRequired: false,
  },
} as const;

/** `<command>:create`, `<command>:revoke` and `<command>:list` for one kind of credential. */
function credentialCommands(kind: 'api_key' | 'access_token'): Record<string, Command> {
  const { command, label, plural, tag, usage, scopesRequired } = CREDENTIAL_CLI[kind];
  return {
    [`${command}:create`]: {
      summary: `create an ${label}`,
      options: { email: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' }, 'expires-in': { type: 'string' } },
      required: scopesRequired ? ['email', 'scopes'] : ['email'],
      async run(ctx) {
        const { values } = ctx;
        const { ApiKeyService, parseExpiry } = await load.apiKeys();
        const { scopesForRole } = await import('../auth/scopes.ts');
        const expiresAt = typeof values['expires-in'] === 'string' ? parseExpiry(values['expires-in']) : null;
        const db = await ctx.database();
        const user = await findUser(db, String(values.email));
        const scopes =
          typeof values.scopes === 'string'
            ? values.scopes
                .split(',')
                .map((scope) => scope.trim())
                .filter((scope) => scope.length > 0)
            : scopesForRole(user.role).filter((scope) => scope !== 'admin');
        if (scopes.length === 0) throw new UsageError(`--scopes needs a comma-separated list of ${SCOPES.join(', ')}`);
        const name = typeof values.name === 'string' ? values.name : `cli ${new Date().toISOString().slice(0, 10)}`;
        const { secret, record } = await new ApiKeyService(db.prisma, ctx.config.auth.maxActiveCredentials).create({
          userId: user.id,
          name,
          scopes,
          expiresAt,
          kind,
        });
        return output(
          ctx.json,
          [
            `Created ${label} ${record.prefix} "${record.name}" for ${user.email}`,
            `scopes: ${record.scopes.join(', ')}; expires: ${record.expiresAt ? record.expiresAt.toISOString() : 'never'}`,
            `The ${kind === 'api_key' ? 'key' : 'token'} is shown only now (it is stored as a hash). ${usage}`,
            secret,
          ],
          {
            [kind === 'api_key' ? 'key' : 'token']: secret,
            id: record.id,
            prefix: record.prefix,
            name: record.name,
            scopes: record.scopes,
            expiresAt: record.expiresAt?.toISOString() ?? null,
            user: { id: user.id, email: user.email },
          },
        );
      },
    },

    [`${command}:revoke`]: {
      summary: `revoke an ${label}`,
      options: { prefix: { type: 'string' } },
      required: ['prefix'],
      async run(ctx) {
        const prefix = String(ctx.values.prefix).trim();
        const { ApiKeyService, isKeyPrefix } = await load.apiKeys();
        if (!isKeyPrefix(prefix, kind)) {
          throw new CommandError(`Invalid prefix: expected ${tag} followed by 8 hex characters, as ${command}:list shows it`);
        }
        const db = await ctx.database();
        const before = await db.prisma.apiKey.findFirst({ where: { prefix, kind }, include: { user: { select: { email: true } } } });
        if (!before) throw new CommandError(`${label === 'API key' ? 'API key' : 'Access token'} ${prefix} not found`);
        const key = await new ApiKeyService(db.prisma).revoke({ prefix, kind });
        const already = before.revokedAt !== null;
        return output(
          ctx.json,
          [`${already ? 'Already revoked' : 'Revoked'}: ${key.prefix} "${key.name}" of ${before.user.email} (at ${key.revokedAt?.toISOString()})`],
          {
            id: key.id,
            prefix: key.prefix,
            name: key.name,
            user: { id: key.userId, email: before.user.email },
            revokedAt: key.revokedAt?.toISOString() ?? null,
            alreadyRevoked: already,
          },
        );
      },
    },

    [`${command}:list`]: {
      summary: `list a user's ${plural}`,
      options: { email: { type: 'string' } },
      required: ['email'],
      async run(ctx) {
        const db = await ctx.database();
        const user = await findUser(db, String(ctx.values.email));
        const { ApiKeyService } = await load.apiKeys();
        const now = new Date();
        const keys = (await new ApiKeyService(db.prisma).list(user.id, kind)).map((key) => ({
          id: key.id,
          prefix: key.prefix,
          name: key.name,
          scopes: key.scopes,
          state: key.revokedAt ? 'revoked' : key.expiresAt && key.expiresAt <= now ? 'expired' : 'active',
          createdAt: key.createdAt.toISOString(),
          expiresAt: key.expiresAt?.toISOString() ?? null,
          revokedAt: key.revokedAt?.toISOString() ?? null,
          lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
        }));
        const lines =
          keys.length === 0
            ? [`${user.email} has no ${plural}`]
            : table(
                ['PREFIX', 'NAME', 'SCOPES', 'STATE', 'CREATED', 'EXPIRES', 'LAST USED'],
                keys.map((key) => [
                  key.prefix,
                  key.name,
                  key.scopes.join(','),
                  key.state,
                  key.createdAt.slice(0, 16).replace('T', ' '),
                  key.expiresAt ? key.expiresAt.slice(0, 16).replace('T', ' ') : 'never',
                  key.lastUsedAt ? key.lastUsedAt.slice(0, 16).replace('T', ' ') : '-',
                ]),
              );
        return output(ctx.json, lines, { user: { id: user.id, email: user.email }, [kind === 'api_key' ? 'keys' : 'tokens']: keys });
      },
    },
  };
}

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

function output(json: boolean, lines: string[], data: Record<string, unknown>): Output {
  return { json, lines, data };
}

const COMMANDS: Record<string, Command> = {
  'user:create': {
    summary: 'create a user (and organization)',
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      org: { type: 'string' },
      admin: { type: 'boolean' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
    },
    required: ['email'],
    async run(ctx) {
      const { values } = ctx;
      if (values.password !== undefined && values['password-stdin']) {
        throw new UsageError('--password and --password-stdin are mutually exclusive');
      }
      let password: string | undefined;
      if (values['password-stdin']) {
        password = (await ctx.stdin()).split(/\r?\n/)[0];
      } else if (typeof values.password === 'string') {
        password = values.password;
        ctx.warn('warning: --password leaves the password in the shell history; prefer --password-stdin');
      }
      if (password !== undefined && password.length < MIN_PASSWORD_LENGTH) {
        throw new CommandError(`Invalid password: must be at least ${MIN_PASSWORD_LENGTH} characters`);
      }
      const orgName = typeof values.org === 'string' ? values.org.trim() : undefined;
      if (orgName !== undefined && (orgName.length === 0 || orgName.length > 200)) {
        throw new CommandError('Invalid org: must be 1 to 200 characters');
      }
      const db = await ctx.database();
      const email = String(values.email).trim().toLowerCase();
      const existed = (await db.prisma.user.findUnique({ where: { email }, select: { id: true } })) !== null;
      const { OrganizationService } = await load.organizations();
      const { hashPassword } = await load.passwords();
      const { user, org } = await new OrganizationService(db.prisma).ensureUser({
        email,
        name: typeof values.name === 'string' ? values.name : undefined,
        orgName,
        role: values.admin ? 'admin' : undefined,
        passwordHash: password === undefined ? undefined : await hashPassword(password),
      });
      const lines = [`${existed ? 'Updated' : 'Created'} user ${user.email} (role ${user.role})`, `user id: ${user.id}`];
      if (org) lines.push(`org id:  ${org.id} (${org.name}, member)`);
      return output(ctx.json, lines, {
        created: !existed,
        user: { id: user.id, email: user.email, name: user.name, role: user.role, hasPassword: user.passwordHash !== null },
        organization: org ? { id: org.id, name: org.name } : null,
      });
    },
  },

  ...credentialCommands('api_key'),
  ...credentialCommands('access_token'),

  'db:migrate': {
    summary: 'apply pending migrations',
    options: {},
    async run(ctx) {
      const { migrate, readMigrations } = await load.migrator();
      const db = await ctx.database();
      const result = await migrate(db.pool, { log: (message) => (message.startsWith('another instance') ? ctx.warn(message) : undefined) });
      const total = (await readMigrations()).length;
      const lines =
        result.applied.length === 0
          ? [`Database schema is up to date (${total} migration${total === 1 ? '' : 's'})`]
          : [`Applied ${result.applied.length} migration${result.applied.length === 1 ? '' : 's'}:`, ...result.applied.map((name) => `  ${name}`)];
      return output(ctx.json, lines, { applied: result.applied, upToDate: result.applied.length === 0, migrations: total, database: db.kind });
    },
  },

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
  },

  'db:url': {
    summary: 'print the database connection URL',
    options: {},
    async run(ctx) {
      const { config } = ctx;
      let url = config.databaseUrl;
      let kind = 'postgresql';
      if (!url) {
        kind = 'pglite';
        url = (await load.embedded()).findRunningServer(config.dataDir);
        if (!url) {
          throw new CommandError(
            `No service is serving the embedded database in ${config.dataDir}: its URL exists only while a process ` +
              'serves it. Start the service (npm start), then ask again.',
          );
        }
      }
      return output(ctx.json, [url], { url, kind });
    },
  },

  'demo:credentials': {
    summary: 'new passwords and a new API key for the demo',
    options: {},
    async run(ctx) {
      const seed = await load.seed();
      const { ApiKeyService } = await load.apiKeys();
      const db = await ctx.database();
      const credentials = await seed.reissueDemoCredentials({ prisma: db.prisma, apiKeys: new ApiKeyService(db.prisma, ctx.config.auth.maxActiveCredentials) });
      if (!credentials)
        throw new CommandError(
          `No demo here (${seed.DEMO_ADMIN_EMAIL} and ${seed.DEMO_ANALYST_EMAIL} in their organizations): npm run cli -- seed:demo seeds it`,
        );
      const lines: string[] = [];
      seed.printDemoCredentials((line) => lines.push(line), credentials, {
        dashboardUrl: seed.dashboardUrlHint(ctx.config),
        heading: seed.demoHeading(db.kind, 'demo:credentials'),
      });
      return output(ctx.json, lines, {
        admin: { email: seed.DEMO_ADMIN_EMAIL, password: credentials.adminPassword },
        analyst: { email: seed.DEMO_ANALYST_EMAIL, password: credentials.analystPassword },
        apiKey: credentials.apiKey,
        organizations: { demoCapital: credentials.demoOrgId, northwind: credentials.otherOrgId },
      });
    },
  },

  'seed:demo': {
    summary: 'seed the demo organizations, users and data',
    options: {},
    async run(ctx) {
      const seed = await load.seed();
      const db = await ctx.database({ poolSize: 4 });
      const existing = await db.prisma.user.findUnique({ where: { email: seed.DEMO_ADMIN_EMAIL }, select: { id: true } });
      if (existing) {
        return output(ctx.json, [`The demo exists already (${seed.DEMO_ADMIN_EMAIL}); nothing was seeded. Its credentials were shown when it was seeded.`], {
          seeded: false,
          exists: true,
        });
      }
      const { buildServices, createBlobStore } = await load.app();
      const { createLogger } = await load.log();
      const services = buildServices(ctx.config, db, createLogger('silent'), { blobs: await createBlobStore(ctx.config, createLogger('silent')) });
      try {
        const lines: string[] = [];
        const print = (line: string) => lines.push(line);
        let credentials: import('../seed/demo-seed.ts').DemoCredentials | undefined;
        const result = await seed
          .seedDemoData(services, {
            onlyIntoEmptyDatabase: false,
            onCredentials: (created) => {
              credentials = created;
              // Shown at once on stderr if the data load fails below: the users exist by then.
              if (!ctx.json)
                seed.printDemoCredentials(print, created, { dashboardUrl: seed.dashboardUrlHint(ctx.config), heading: seed.demoHeading(db.kind, 'seed:demo') });
            },
          })
          .catch((error: unknown) => {
            if (credentials) {
              const block: string[] = [];
              seed.printDemoCredentials((line) => block.push(line), credentials, {
                dashboardUrl: seed.dashboardUrlHint(ctx.config),
                heading: seed.demoHeading(db.kind, 'seed:demo'),
              });
              ctx.warn(`${block.join('\n')}\nThe users above were created, but loading the demo data failed.`);
            }
            throw error;
          });
        return output(ctx.json, [...lines, `Seeded ${result.files?.length ?? 0} files in ${Math.round((result.durationMs ?? 0) / 100) / 10} s.`], {
          seeded: true,
          dashboardUrl: seed.dashboardUrlHint(ctx.config),
          admin: { email: seed.DEMO_ADMIN_EMAIL, password: result.adminPassword },
          analyst: { email: seed.DEMO_ANALYST_EMAIL, password: result.analystPassword },
          apiKey: result.apiKey,
          organizations: result.organizations,
          files: result.files,
        });
      } finally {
        await services.progress.close().catch(() => {});
        await services.pubsub.close().catch(() => {});
      }
    },
  },

  'transcript:import': {
    summary: 'import a meeting transcript for a user',
    options: {
      email: { type: 'string' },
      file: { type: 'string' },
      format: { type: 'string' },
      title: { type: 'string' },
      'occurred-at': { type: 'string' },
    },
    required: ['email', 'file'],
    async run(ctx) {
      const { values } = ctx;
      const file = String(values.file);
      const extension = path.extname(file).slice(1).toLowerCase();
      const format = (typeof values.format === 'string' ? values.format : extension).trim().toLowerCase();
      if (format !== 'vtt' && format !== 'srt' && format !== 'json') {
        throw new UsageError(
          typeof values.format === 'string'
            ? `--format must be vtt, srt or json, got ${values.format}`
            : `cannot tell the format of ${file}: pass --format vtt|srt|json`,
        );
      }
      let occurredAt: Date | null = null;
      if (typeof values['occurred-at'] === 'string') {
        occurredAt = new Date(values['occurred-at']);
        if (!/^\d{4}-\d{2}-\d{2}/.test(values['occurred-at']) || Number.isNaN(occurredAt.getTime())) {
          throw new CommandError('Invalid occurred-at: must be an ISO 8601 timestamp such as 2026-03-02T09:30:00Z');
        }
      }
      const { TRANSCRIPT_LIMITS } = await import('../workspace/transcripts/parsers.ts');
      let content: string;
      try {
        const size = fs.statSync(file).size;
        if (size > TRANSCRIPT_LIMITS.contentBytes)
          throw new CommandError(`${file} is ${size} bytes; at most 5 MB (${TRANSCRIPT_LIMITS.contentBytes} bytes) can be imported`);
        content = fs.readFileSync(file, 'utf8');
      } catch (error) {
        if (error instanceof CommandError) throw error;
        throw new CommandError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? describe(error)}`);
      }
      const db = await ctx.database();
      const user = await findUser(db, String(values.email));
      const { createTranscriptService } = await load.transcripts();
      const transcript = await createTranscriptService({ config: ctx.config.transcripts, prisma: db.prisma }).import(
        user.id,
        { format, content, title: typeof values.title === 'string' ? values.title : null, occurredAt },
        { fallbackTitle: path.basename(file, path.extname(file)) },
      );
      return output(
        ctx.json,
        [
          `Imported transcript ${transcript.id} "${transcript.title}" for ${user.email}`,
          `occurred at ${transcript.occurredAt.toISOString()}; ${transcript.sentenceCount} sentences; ${transcript.durationSeconds} s`,
          `participants: ${transcript.participants.join(', ') || '-'}`,
        ],
        {
          id: transcript.id,
          title: transcript.title,
          occurredAt: transcript.occurredAt.toISOString(),
          durationSeconds: transcript.durationSeconds,
          participants: transcript.participants,
          sentenceCount: transcript.sentenceCount,
          format,
          user: { id: user.id, email: user.email },
        },
      );
    },
  },

  help: {
    summary: 'show the usage',
    options: {},
    async run(ctx) {
      return output(ctx.json, [USAGE], { usage: USAGE, commands: Object.keys(COMMANDS) });
    },
  },
};

async function findUser(db: Database, emailText: string) {
  const email = emailText.trim().toLowerCase();
  const user = await db.prisma.user.findUnique({ where: { email } });
  if (!user) throw new CommandError(`No user with email ${email} (create one with user:create)`);
  return user;
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** The embedded database is ours (not a running service's) when the lock file names this process. */
async function ownsEmbeddedDatabase(db: Database, dataDir: string): Promise<boolean> {
  if (db.kind !== 'pglite') return false;
  const { lockFilePath } = await load.embedded();
  try {
    return (JSON.parse(fs.readFileSync(lockFilePath(dataDir), 'utf8')) as { pid?: number }).pid === process.pid;
  } catch {
    return false;
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  stdin: () => Promise<string>;
}

/** Runs one CLI invocation; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  let db: Database | undefined;
  try {
    const [name, ...rest] = argv;
    if (name === undefined || name === '--help' || name === '-h' || (name === '--json' && rest.length === 0)) {
      return print(io, output(json, [USAGE], { usage: USAGE, commands: Object.keys(COMMANDS) }));
    }
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw new UsageError(name.startsWith('-') ? `expected a command before ${name}` : `unknown command ${name}`);
    let values: Values;
    try {
      ({ values } = parseArgs({
        args: [...rest],
        options: { ...command.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
        strict: true,
        allowPositionals: false,
      }) as { values: Values });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message.split('\n')[0] : String(error));
    }
    if (values.help) return print(io, output(json, [USAGE], { usage: USAGE, commands: Object.keys(COMMANDS) }));
    for (const option of command.required ?? []) {
      const value = values[option];
      if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${name} needs --${option}`);
    }
    const { ConfigError, loadConfig } = await load.config();
    let config: Config;
    try {
      config = loadConfig(io.env);
    } catch (error) {
      if (error instanceof ConfigError) throw new CommandError(error.message);
      throw error;
    }
    const warn = (message: string) => io.stderr(`${message}\n`);
    const result = await command.run({
      values,
      config,
      json,
      stdin: io.stdin,
      warn,
      async database(options) {
        if (db) return db;
        const { openDatabase } = await load.database();
        db = await openDatabase({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          pglitePort: config.pglitePort,
          mode: 'attach',
          poolSize: options?.poolSize ?? 2,
        });
        if (name === 'db:migrate') return db;
        if (await ownsEmbeddedDatabase(db, config.dataDir)) {
          // No service runs on this data directory: bring it up to date as the service would.
          const { applied } = await (await load.migrator()).migrate(db.pool);
          if (applied.length > 0) warn(`applied migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}`);
        } else {
          await assertMigrated(db);
        }
        return db;
      },
    });
    return print(io, result);
  } catch (error) {
    const usage = error instanceof UsageError;
    io.stderr(`${usage ? 'usage error' : 'error'}: ${describe(error)}\n`);
    if (usage) io.stderr(`Run "npm run cli -- help" for the commands and their options.\n`);
    return usage ? 2 : 1;
  } finally {
    await db?.close().catch((error: unknown) => io.stderr(`error: closing the database: ${describe(error)}\n`));
  }
}

/** Refuses to work on a database the service's migrations have not reached yet. */
async function assertMigrated(db: Database): Promise<void> {
  const migrations = await (await load.migrator()).readMigrations();
  let applied: Set<string>;
  try {
    const { rows } = await db.pool.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    applied = new Set(rows.map((row) => row.migration_name));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01')
      applied = new Set(); // no _prisma_migrations table yet
    else throw error;
  }
  const pending = migrations.filter((migration) => !applied.has(migration.name));
  if (pending.length > 0) {
    throw new CommandError(
      `The database has ${pending.length} unapplied migration${pending.length === 1 ? '' : 's'} ` +
        `(${pending.map((m) => m.name).join(', ')}); run "npm run cli -- db:migrate" first`,
    );
  }
}

function print(io: CliIo, result: Output): number {
  if (result.json) io.stdout(`${JSON.stringify(result.data)}\n`);
  else io.stdout(`${result.lines.join('\n')}\n`);
  return 0;
}

function describe(error: unknown): string {
  if (error instanceof Error && error.constructor.name === 'EmbeddedDatabaseBusyError') {
    return `${error.message} (it started while the CLI was opening the database); run the command again`;
  }
  // AppError (domain validation), MigrationError, CommandError, UsageError: their message is for the operator.
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') return `cannot connect to the database (${error.message})`;
    return error.message || error.name;
  }
  return String(error);
}

async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    stdin: readStdin,
  });
  process.exitCode = code;
  // Everything is closed by now; this only guards against a stray handle keeping the process alive.
  setTimeout(() => process.exit(code), 5_000).unref();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
