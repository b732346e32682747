/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and prints where the time went: self time by
 * function and by file (node_modules folded to the package), and inclusive time of the
 * functions named on the command line. The tool behind the profiles in docs/operations.md.
 * `--busiest=<s>` keeps only the window of that many seconds with the least idle time (the
 * load phase, without start-up and shutdown); shares are of the busy (non-idle) time.
 * `--from=<s>` / `--to=<s>` keep a window by time from the profile's start instead (when start-up
 * work, such as the background compilation of validators, is the busiest stretch).
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [--top=30] [--busiest=5 | --from=10 --to=15] [function names...]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
const args = process.argv.slice(2);
const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const [file, ...focus] = args.filter((a) => !a.startsWith('--'));
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const top = Number(opt('top') ?? 30);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));

// Sample i covers timeDeltas[i + 1] microseconds (the gap to the next sample).
const at: number[] = [];
const dur: number[] = [];
let clock = 0;
profile.samples.forEach((_, i) => {
  clock += profile.timeDeltas[i] ?? 0;
  at.push(clock);
  dur.push(profile.timeDeltas[i + 1] ?? 0);
});
let [from, to] = [0, profile.samples.length];
const busiest = Number(opt('busiest') ?? 0) * 1e6;
if (busiest) {
  // Two pointers over the samples: the window of `busiest` microseconds with the most busy time.
  let best = -1;
  let busy = 0;
  for (let lo = 0, hi = 0; lo < at.length; lo++) {
    for (; hi < at.length && at[hi] - at[lo] < busiest; hi++) if (!idleIds.has(profile.samples[hi])) busy += dur[hi];
    if (busy > best) [best, from, to] = [busy, lo, hi];
    busy -= idleIds.has(profile.samples[lo]) ? 0 : dur[lo];
  }
}
if (opt('from') || opt('to')) {
  const [a, b] = [Number(opt('from') ?? 0) * 1e6, Number(opt('to') ?? Infinity) * 1e6];
  from = at.findIndex((t) => t >= a);
  to = at.findIndex((t) => t > b);
  if (from < 0) from = at.length;
  if (to < 0) to = at.length;
}
const self = new Map<number, number>();
for (let i = from; i < to; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dur[i]);
const idle = [...self].filter(([id]) => idleIds.has(id)).reduce((a, [, t]) => a + t, 0);
for (const id of idleIds) self.delete(id);
const total = [...self.values()].reduce((a, b) => a + b, 0);

const place = (url: string) => {
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `npm:${nm[1]}`;
  if (url.startsWith('node:')) return url;
  const src = /\/((?:src|bench|devnet|sdk)\/.*)$/.exec(url);
  return src ? src[1] : url || '(native/vm)';
};
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const fns = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  const where = place(n.callFrame.url);
  add(fns, `${n.callFrame.functionName || '(anonymous)'} ${where}:${n.callFrame.lineNumber + 1}`, t);
  add(files, where, t);
}
const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
};
console.log(`${file}: ${((total + idle) / 1e6).toFixed(2)} s${busiest || opt('from') || opt('to') ? ` (window from ${((at[from] ?? 0) / 1e6).toFixed(1)} s)` : ''}, ${(total / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle; shares are of the busy time`);
show('self time by function', fns);
show('self time by file or package', files);

if (focus.length) {
  // Inclusive time: the self time of a node and everything below it, for each named function (counted once per stack).
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const incl = new Map<string, number>();
  for (const [id, t] of self) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const name = byId.get(cur)!.callFrame.functionName;
      if (focus.includes(name) && !seen.has(name)) {
        seen.add(name);
        add(incl, name, t);
      }
    }
  }
  show('inclusive time', incl);
}
