/**
 * `npm run contract:check`: compares the contract of the three fronts (the GraphQL SDL, the REST
 * layer's OpenAPI document, the MCP tools' input and output schemas) built from the code with the
 * committed baseline (contract/baseline/), prints every change, one per line with its front, and
 * exits 1 on a breaking one (or when the baseline changed without a CHANGELOG.md line). Additions
 * are listed as info and pass. docs/contract.md says what counts as breaking on each front.
 *
 * `npm run contract:baseline` (`--write`): prints the changes from the old baseline, then rewrites
 * the baseline from the code; commit it with a line in CHANGELOG.md.
 *
 * `--baseline DIR`: compare with another baseline (the tests' temp copies); the CHANGELOG.md rule
 * is checked for the committed baseline only.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ContractChange } from './contract/changes.ts';
import {
  checkChangelogRule,
  compareContracts,
  currentContract,
  DEFAULT_BASELINE_DIR,
  formatBaseline,
  MissingBaselineError,
  readBaseline,
  REPOSITORY_ROOT,
  writeBaseline,
  type Contract,
} from './contract/contract.ts';

const { values } = parseArgs({ options: { baseline: { type: 'string' }, write: { type: 'boolean', default: false } } });
const baselineDir = path.resolve(values.baseline ?? DEFAULT_BASELINE_DIR);
const shownDir = path.relative(REPOSITORY_ROOT, baselineDir) || '.';

const current = await currentContract();
const baseline = readBaselineIfAny(baselineDir, values.write);
const changes = baseline ? await compareContracts(baseline, current) : [];
for (const line of formatChanges(changes)) console.log(line);
const breakingCount = changes.filter((change) => change.level === 'breaking').length;

if (values.write) {
  const written = writeBaseline(baselineDir, current);
  formatBaseline(written);
  for (const file of written) console.log(`wrote ${path.relative(REPOSITORY_ROOT, file)}`);
  console.log(
    `contract:baseline: ${baseline ? `${breakingCount} breaking and ${changes.length - breakingCount} other changes from the old baseline` : 'first baseline'}; ` +
      'commit it with a line in CHANGELOG.md saying what changed in the contract',
  );
  process.exit(0);
}

const rule = path.resolve(baselineDir) === path.resolve(DEFAULT_BASELINE_DIR) ? checkChangelogRule() : { problems: [] as string[] };
for (const problem of rule.problems) console.log(`PROBLEM   changelog ${problem}`);
if (rule.skipped) console.log(`note: the CHANGELOG.md rule was ${rule.skipped}`);
console.log(`contract:check: ${breakingCount} breaking, ${changes.length - breakingCount} other changes against ${shownDir} (GraphQL SDL, OpenAPI, MCP tools)`);
if (breakingCount > 0) {
  console.log(
    'A breaking change fails the check. Restore what was removed or narrowed, or, if the break is deliberate, run npm run contract:baseline and commit the baseline with a line in CHANGELOG.md (docs/contract.md).',
  );
}
process.exit(breakingCount > 0 || rule.problems.length > 0 ? 1 : 0);

function readBaselineIfAny(dir: string, writing: boolean): Contract | undefined {
  try {
    return readBaseline(dir);
  } catch (error) {
    // The first `contract:baseline` has no baseline to compare with; the check needs one.
    if (error instanceof MissingBaselineError && writing) return undefined;
    if (error instanceof MissingBaselineError) {
      console.error(`contract:check: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}

/** Breaking changes first, each line: level, front, what. */
function formatChanges(list: ContractChange[]): string[] {
  const ordered = [...list.filter((change) => change.level === 'breaking'), ...list.filter((change) => change.level !== 'breaking')];
  return ordered.map((change) => `${change.level === 'breaking' ? 'BREAKING' : 'info    '}  ${change.front.padEnd(7)} ${change.message}`);
}
