/**
 * Writes docs/configuration.md's tables of every environment variable, generated from the
 * configuration schema's groups and descriptions (src/config.ts, server/configuration-table.ts),
 * between their markers; the hand-written text around them is kept. `npm run configuration:emit`,
 * a step of `npm run emit`; test/schema/configuration-doc.test.ts fails when the file is stale.
 */
import { readFileSync } from 'node:fs';
import { withConfigurationTable } from '../server/configuration-table.ts';
import { isEntryPoint, writeEmitted } from './emitted-file.ts';

const CONFIGURATION_DOC_PATH = new URL('../docs/configuration.md', import.meta.url);

export function emitConfigurationDoc(): void {
  writeEmitted(CONFIGURATION_DOC_PATH, withConfigurationTable(readFileSync(CONFIGURATION_DOC_PATH, 'utf8')));
}

if (isEntryPoint(import.meta.url)) emitConfigurationDoc();
