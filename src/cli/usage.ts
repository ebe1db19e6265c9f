import { SCOPES } from '../auth/scopes.ts';

/** The CLI's help text (docs/cli.md says the same for readers of the docs). */
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
  returns:benchmark --entity NAME (--benchmark NAME | --clear) [--org NAME]
        Give an entity a benchmark: the name of a series uploaded to its organization
        (file_type=benchmark), compared in its period and calendar returns; --clear removes
        it. --org when the entity's name exists in several organizations.
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
  audit:verify
        Verify the audit log's hash chains (docs/audit.md): every event's hash from its
        predecessor's, per organization. Exit 1 naming each chain's first broken link (an
        edited or deleted event).
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
