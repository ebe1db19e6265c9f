// `prisma generate` needs no schema engine, but the CLI insists that one exists. Pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file stops it from trying to download one
// (the download host is unreachable on our machines; see DESIGN.md).
import { spawnSync } from 'node:child_process';

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
const result = spawnSync('npx', ['prisma', 'generate', '--no-hints'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
