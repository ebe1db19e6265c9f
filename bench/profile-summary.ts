/**
 * Sums .cpuprofile files (V8's format: nodes, samples, timeDeltas) by file and by function:
 * self time, and inclusive time (a sample counts once for every distinct frame on its stack).
 * In µs per request too, given the request count (--requests, or the `requests` the profiles of
 * bench/ceiling-compare.ts --profile carry).
 *
 *   npx tsx bench/profile-summary.ts [--requests N] [--top 40] [--match TEXT] file.cpuprofile...
 *
 * --match TEXT: only the samples whose stack has a frame whose function or URL contains TEXT.
 * --window FROM,TO: only the samples taken FROM to TO seconds after the profile started (a phase
 *   of a long run, e.g. bench/generation-sse.ts's delivery; find it with --timeline).
 * --timeline: instead, each second's busy (non-idle) milliseconds, to find the phases.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** Added by bench/ceiling-compare.ts: the requests answered while it was taken. */
  requests?: number;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: 'string' },
    top: { type: 'string', default: '40' },
    match: { type: 'string' },
    window: { type: 'string' },
    timeline: { type: 'boolean', default: false },
  },
});
const top = Number(values.top);
let requests = values.requests ? Number(values.requests) : undefined;
let carried = 0;
const [windowFrom, windowTo] = values.window ? values.window.split(',').map((seconds) => Number(seconds) * 1e6) : [0, Infinity];
const busyBySecond = new Map<number, number>();

const selfByFile = new Map<string, number>();
const inclusiveByFile = new Map<string, number>();
const selfByFunction = new Map<string, number>();
const inclusiveByFunction = new Map<string, number>();
let total = 0;

const shortUrl = (url: string) => {
  if (!url) return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) return url.slice(modules + 'node_modules/'.length);
  return url.replace(/^file:\/\/.*?\/main\//, '').replace(/^node:/, 'node:');
};

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  carried += profile.requests ?? 0;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  let elapsed = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    elapsed += profile.timeDeltas[i] ?? 0;
    if (elapsed < windowFrom! || elapsed > windowTo!) continue;
    // timeDeltas[i] is the time before sample i; attribute the next delta to this sample.
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (values.timeline) {
      const second = Math.floor(elapsed / 1e6);
      if (byId.get(profile.samples[i]!)!.callFrame.functionName !== '(idle)') busyBySecond.set(second, (busyBySecond.get(second) ?? 0) + dt);
      continue;
    }
    const stack: ProfileNode[] = [];
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!);
    if (values.match && !stack.some((node) => node.callFrame.functionName.includes(values.match!) || node.callFrame.url.includes(values.match!))) continue;
    total += dt;
    const leaf = stack[0]!;
    const fileOf = (node: ProfileNode) => shortUrl(node.callFrame.url) || node.callFrame.functionName;
    const fnOf = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${fileOf(node)}:${node.callFrame.lineNumber + 1}`;
    const leafName = leaf.callFrame.url ? fileOf(leaf) : leaf.callFrame.functionName;
    selfByFile.set(leafName, (selfByFile.get(leafName) ?? 0) + dt);
    selfByFunction.set(fnOf(leaf), (selfByFunction.get(fnOf(leaf)) ?? 0) + dt);
    for (const name of new Set(stack.map(fileOf))) inclusiveByFile.set(name, (inclusiveByFile.get(name) ?? 0) + dt);
    for (const name of new Set(stack.map(fnOf))) inclusiveByFunction.set(name, (inclusiveByFunction.get(name) ?? 0) + dt);
  }
}

if (values.timeline) {
  for (const [second, us] of [...busyBySecond].sort((a, b) => a[0] - b[0]))
    console.log(`${String(second).padStart(5)} s ${(us / 1000).toFixed(0).padStart(5)} ms busy`);
  process.exit(0);
}
requests ??= carried || undefined;
const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const perRequest = requests ? `${(us / requests).toFixed(1).padStart(8)} µs/req` : '';
    console.log(`${((100 * us) / total).toFixed(1).padStart(6)}% ${(us / 1000).toFixed(0).padStart(8)} ms${perRequest}  ${name}`);
  }
};
console.log(
  `${positionals.length} profiles, ${(total / 1000).toFixed(0)} ms sampled${requests ? `, ${requests} requests: ${(total / requests).toFixed(1)} µs/req` : ''}`,
);
show('self, by file', selfByFile);
show('inclusive, by file', inclusiveByFile);
show('self, by function', selfByFunction);
show('inclusive, by function', inclusiveByFunction);
