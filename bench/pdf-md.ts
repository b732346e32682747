/**
 * pdf-md quality and speed beside other converters, in one run, on the documents of the
 * olmOCR-bench-style unit tests (test/fixtures/md-cases.ts: the quality corpus plus the
 * structure set in test/fixtures/quality/).
 *
 * For each converter: the pass rate per category (absent, present, order, table, heading,
 * not_heading, code) and overall on the tuned suite, and apart on the holdout documents
 * (test/fixtures/md-holdout.ts: never tuned on); pages per second over the tuned suite's
 * documents, one document at a time in one thread (pdf-md through runTool in this thread; the
 * others as their own processes, timed from spawn to exit), and with as many documents at once
 * as the machine has cores (pdf-md through the tool pool, one worker per core; the others as
 * that many concurrent processes; each of those lanes converts the whole suite, so that many
 * documents are in flight until the end). The converters take turns in every timed round (after one
 * untimed warm-up pass each) and the medians are reported, so that a change of load falls on
 * all of them alike; the load average is printed with the figures: timings on a shared machine
 * are noisy. Converters:
 * - pdf-md: this checkout's src/ (and, with `--before <git revision>`, that revision's src/
 *   beside it, from `git archive` into a temporary directory sharing node_modules, with its
 *   own tool pool for documents side by side);
 * - pdftotext and pdftotext -layout (poppler-utils; installed with apt-get when missing and root);
 * - @llamaindex/liteparse (Apache-2.0; Markdown output, OCR off): not a dependency of this
 *   project. With `--liteparse` the bench installs LITEPARSE_VERSION on demand (`npm install
 *   --prefix`, as bench/quote-oop.ts does for the reference x402 server) into
 *   ~/.cache/paycall/liteparse (or LITEPARSE_DIR), outside the repository; an existing install
 *   there is reused.
 *
 * With `--steady <passes>` the figure for `cores` documents at once is also taken a second time,
 * after that many more untimed passes of every converter (the pool's workers are long-lived in
 * production, so after a while they run code V8 has finished optimizing, while one warm-up pass
 * leaves them still compiling): an extra, labelled figure beside the others, which stay as they were.
 *
 *   npx tsx bench/pdf-md.ts [rounds] [--before <rev>] [--failures] [--no-parallel] [--steady <passes>] [--liteparse] [--verbose]
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CATEGORIES } from '../test/fixtures/md-cases.ts';
import { HOLDOUT_CASES } from '../test/fixtures/md-holdout.ts';
import { silentLogger } from '../src/log.ts';
import { createToolPool } from '../src/tools/tool-pool.ts';
import { caseDocuments, rate, scoreOutputs, type QualityReport } from '../test/fixtures/md-checks.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const rounds = Number(args.find((a, k) => /^\d+$/.test(a) && args[k - 1] !== '--steady') ?? 3);
// liteparse logs its stage timings on stdout: kept out of the report unless asked for.
const quietLiteparse = !args.includes('--verbose');
const beforeRev = args.includes('--before') ? args[args.indexOf('--before') + 1] : null;
const showFailures = args.includes('--failures');
const parallel = !args.includes('--no-parallel');
const steadyPasses = args.includes('--steady') ? Number(args[args.indexOf('--steady') + 1]) : 0;
const LITEPARSE_VERSION = '2.14.7';
const liteparseDir = process.env.LITEPARSE_DIR ?? (args.includes('--liteparse') ? path.join(os.homedir(), '.cache/paycall/liteparse') : null);

/** The liteparse entry point, installed into liteparseDir on demand; null with the reason printed. */
function liteparseEntry(): string | null {
  if (!liteparseDir) return null;
  const entry = path.join(liteparseDir, 'node_modules/@llamaindex/liteparse/dist/lib.js');
  if (!existsSync(entry)) {
    try {
      execFileSync('npm', ['install', '--prefix', liteparseDir, '--no-audit', '--no-fund', '--loglevel=error', `@llamaindex/liteparse@${LITEPARSE_VERSION}`], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
    } catch (e) {
      console.log(`liteparse: npm install into ${liteparseDir} failed: ${String((e as { stderr?: Buffer }).stderr ?? e).trim().split('\n').slice(-2).join(' ')}`);
      return null;
    }
  }
  return existsSync(entry) ? entry : null;
}
const cores = os.availableParallelism();

type Convert = (doc: { name: string; file: string; pdf: Buffer }) => Promise<string>;

interface Result {
  name: string;
  report: QualityReport;
  holdout: QualityReport;
  pagesPerSecond: number;
  /** Pages per CPU-second, one document at a time (this process's CPU for pdf-md and liteparse, the children's for pdftotext): steadier than wall time on a shared machine. */
  pagesPerCpuSecond: number;
  /** `cores` documents at once; null when not measured. */
  parallelPagesPerSecond: number | null;
  /** The same after `steadyPasses` more untimed passes (--steady); null when not measured. */
  steadyPagesPerSecond: number | null;
}

const docs = caseDocuments();
const holdoutDocs = caseDocuments(HOLDOUT_CASES);

function pageCount(file: string): number {
  const out = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  return Number(/Pages:\s+(\d+)/.exec(out)?.[1] ?? 0);
}

function ensurePoppler(): boolean {
  const have = () => {
    try {
      execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (have()) return true;
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('apt-get', ['install', '-y', '-qq', 'poppler-utils'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch {
    return false;
  }
  return have();
}

interface Converter {
  name: string;
  convert: Convert;
  /** The same converter for `cores` documents at once (undefined: not measured). */
  convertMany?: Convert;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Every converter over the suite, in alternating rounds: one untimed pass each first (its
 * outputs are the ones scored; it also warms the JIT and loads PDFium), then `rounds` timed
 * rounds in which the converters take turns, their order rotating each round, so that a
 * change in the machine's load falls on all of them alike; then the same for `cores`
 * documents at once (after an untimed pass of that too). The medians of the rounds are reported.
 */
async function measureAll(converters: Converter[], pages: number): Promise<Result[]> {
  const outputs = converters.map(() => new Map<string, string>());
  for (const [i, c] of converters.entries()) for (const d of docs) outputs[i].set(d.name, await c.convert(d));
  const wall = converters.map(() => [] as number[]);
  const cpu = converters.map(() => [] as number[]);
  const par = converters.map(() => [] as number[]);
  const steady = converters.map(() => [] as number[]);
  const turn = (r: number) => converters.map((_, k) => (k + r) % converters.length);
  for (let r = 0; r < rounds; r++) {
    for (const i of turn(r)) {
      const t0 = performance.now();
      const c0 = cpuSeconds();
      for (const d of docs) await converters[i].convert(d);
      wall[i].push(performance.now() - t0);
      cpu[i].push(cpuSeconds() - c0);
    }
  }
  if (parallel) {
    // An untimed pass first here too, as for one document at a time: each pool worker compiles
    // its own code, and the workers had seen only the first documents so far.
    for (const c of converters) {
      const many = c.convertMany;
      if (!many) continue;
      await lanes(many);
    }
    // Timed rounds of documents side by side, the converters taking turns; milliseconds into `into`.
    const timedRounds = async (into: number[][]) => {
      for (let r = 0; r < rounds; r++) {
        for (const i of turn(r)) {
          const many = converters[i].convertMany;
          if (!many) continue;
          const t0 = performance.now();
          await lanes(many);
          into[i].push(performance.now() - t0);
        }
      }
    };
    await timedRounds(par);
    if (steadyPasses > 0) {
      // More untimed passes (the converters taking turns), then timed rounds as above.
      for (let p = 0; p < steadyPasses; p++) {
        for (const i of turn(p)) {
          const many = converters[i].convertMany;
          if (many) await lanes(many);
        }
      }
      await timedRounds(steady);
    }
  }
  const results: Result[] = [];
  for (const [i, c] of converters.entries()) {
    const held = new Map<string, string>();
    for (const d of holdoutDocs) held.set(d.name, await c.convert(d));
    results.push({
      name: c.name,
      report: scoreOutputs(outputs[i]),
      holdout: scoreOutputs(held, HOLDOUT_CASES),
      pagesPerSecond: pages / (median(wall[i]) / 1000),
      pagesPerCpuSecond: pages / Math.max(0.001, median(cpu[i])),
      parallelPagesPerSecond: par[i].length ? (cores * pages) / (median(par[i]) / 1000) : null,
      steadyPagesPerSecond: steady[i].length ? (cores * pages) / (median(steady[i]) / 1000) : null,
    });
  }
  return results;
}

/**
 * `cores` documents at once, all the time: each lane converts the whole suite, starting at its
 * own place in it. With one shared queue the last document ran alone and the figure measured
 * which document happened to come last (a 74-page one left a core idle for a second of a
 * four-second round); here the lanes finish within a document of each other, for every
 * converter alike, and `cores` x the suite's pages are converted.
 */
async function lanes(convert: Convert): Promise<void> {
  await Promise.all(
    Array.from({ length: cores }, async (_, k) => {
      const start = Math.floor((k * docs.length) / cores);
      for (let n = 0; n < docs.length; n++) await convert(docs[(start + n) % docs.length]);
    }),
  );
}

/**
 * CPU seconds of this process (all threads) plus those of its waited-for children (the
 * pdftotext processes), from /proc/self/stat: fields utime+stime and cutime+cstime.
 */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    // Not Linux: this process only.
  }
  return (u.user + u.system) / 1e6 + children;
}

/**
 * pdf-md through a tool pool of `cores` workers: the paid path's engine, documents side by side.
 * `create` is createToolPool of this tree or of the --before tree (whose workers run its code).
 */
function pdfMdPool(create: typeof createToolPool = createToolPool): { convert: Convert; close: () => Promise<void> } {
  const pool = create({ workers: cores, jobTimeoutMs: 600_000, jobMemoryMb: 2048, log: silentLogger, inspectWorkers: 0 });
  return { convert: async (d) => (await pool.run('pdf-md', new Uint8Array(d.pdf))).markdown, close: () => pool.close() };
}

async function pdfMdFrom(srcRoot: string): Promise<Convert> {
  const { runTool } = (await import(pathToFileURL(path.join(srcRoot, 'src/tools/run-tool.ts')).href)) as typeof import('../src/tools/run-tool.ts');
  const deps = { ocr: () => { throw new Error('no OCR in this benchmark'); } };
  return async (d) => (await runTool('pdf-md', new Uint8Array(d.pdf), deps as never)).markdown;
}

function beforeTree(rev: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdf-md-before-'));
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${rev}" src package.json | tar -x -C "${dir}"`]);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function main() {
  const havePoppler = ensurePoppler();
  if (!havePoppler) console.log('pdftotext not available: poppler rows and page counts skipped');
  const pages = havePoppler ? docs.reduce((n, d) => n + pageCount(d.file), 0) : 0;
  console.log(`${docs.length} documents, ${pages} pages; ${rounds} alternating round(s) after a warm-up pass, medians; one document at a time, one thread\n`);

  console.log(`load average before: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; ${cores} cores\n`);
  const converters: Converter[] = [];
  const pool = parallel ? pdfMdPool() : null;
  // Warm the pool's workers (each loads PDFium once) outside the timed rounds.
  if (pool) await Promise.all(docs.slice(0, cores).map((d) => pool.convert(d)));
  converters.push({ name: 'pdf-md (this tree)', convert: await pdfMdFrom(ROOT), convertMany: pool?.convert });
  let beforePool: ReturnType<typeof pdfMdPool> | null = null;
  if (beforeRev) {
    const tree = beforeTree(beforeRev);
    if (parallel) {
      // The revision's own pool, so its row has a figure for documents side by side too.
      const { createToolPool: createBefore } = (await import(pathToFileURL(path.join(tree, 'src/tools/tool-pool.ts')).href)) as typeof import('../src/tools/tool-pool.ts');
      beforePool = pdfMdPool(createBefore);
      await Promise.all(docs.slice(0, cores).map((d) => beforePool!.convert(d)));
    }
    converters.push({ name: `pdf-md (${beforeRev})`, convert: await pdfMdFrom(tree), convertMany: beforePool?.convert });
  }
  if (havePoppler) {
    const ptt: Convert = async (d) => (await run('pdftotext', ['-enc', 'UTF-8', d.file, '-'], { maxBuffer: 1 << 28 })).stdout;
    const pttLayout: Convert = async (d) => (await run('pdftotext', ['-layout', '-enc', 'UTF-8', d.file, '-'], { maxBuffer: 1 << 28 })).stdout;
    converters.push({ name: 'pdftotext', convert: ptt, convertMany: ptt });
    converters.push({ name: 'pdftotext -layout', convert: pttLayout, convertMany: pttLayout });
  }
  const lpEntry = liteparseEntry();
  if (lpEntry) {
    const { LiteParse } = await import(pathToFileURL(lpEntry).href);
    const parser = new LiteParse({ ocrEnabled: false, outputFormat: 'markdown', quiet: quietLiteparse });
    const lp: Convert = async (d) => (await parser.parse(d.file)).text as string;
    converters.push({ name: `liteparse ${LITEPARSE_VERSION} (markdown, OCR off)`, convert: lp, convertMany: lp });
  } else console.log('liteparse: skipped (--liteparse installs it into ~/.cache/paycall/liteparse, or set LITEPARSE_DIR)\n');
  const results = await measureAll(converters, pages);
  await pool?.close();
  await beforePool?.close();

  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
  const table = (title: string, pick: (r: Result) => QualityReport, speed: boolean) => {
    console.log(title);
    console.log(['converter'.padEnd(30), ...CATEGORIES.map((c) => c.padStart(12)), 'overall'.padStart(14), ...(speed ? ['pages/s'.padStart(9), `x${cores} p/s`.padStart(9), 'p/CPU-s'.padStart(9)] : [])].join(''));
    for (const r of results) {
      const q = pick(r);
      const cells = CATEGORIES.map((c) => (q.byCategory[c].total ? `${q.byCategory[c].passed}/${q.byCategory[c].total}`.padStart(6) + pct(rate(q.byCategory[c])).slice(1) : '-'));
      const speeds = speed ? [r.pagesPerSecond.toFixed(0).padStart(9), (r.parallelPagesPerSecond?.toFixed(0) ?? '-').padStart(9), r.pagesPerCpuSecond.toFixed(0).padStart(9)] : [];
      console.log([r.name.padEnd(30), ...cells.map((c) => c.padStart(12)), `${q.overall.passed}/${q.overall.total} ${pct(rate(q.overall)).trim()}`.padStart(14), ...speeds].join(''));
    }
    console.log('');
  };
  table('Tuned suite (test/fixtures/md-cases.ts)', (r) => r.report, true);
  table('Holdout, never tuned on (test/fixtures/md-holdout.ts)', (r) => r.holdout, false);
  const ours = results[0];
  const ptt = results.find((r) => r.name === 'pdftotext');
  if (ptt) {
    console.log(`pdf-md / pdftotext pages per second, one document at a time: ${(ours.pagesPerSecond / ptt.pagesPerSecond).toFixed(2)}x`);
    console.log(`pdf-md / pdftotext pages per CPU-second, one document at a time: ${(ours.pagesPerCpuSecond / ptt.pagesPerCpuSecond).toFixed(2)}x`);
    if (ours.parallelPagesPerSecond && ptt.parallelPagesPerSecond) console.log(`pdf-md / pdftotext pages per second, ${cores} documents at once: ${(ours.parallelPagesPerSecond / ptt.parallelPagesPerSecond).toFixed(2)}x`);
    if (ours.steadyPagesPerSecond && ptt.steadyPagesPerSecond) console.log(`pdf-md / pdftotext pages per second, ${cores} documents at once, steady state (after ${steadyPasses} more untimed passes): ${(ours.steadyPagesPerSecond / ptt.steadyPagesPerSecond).toFixed(2)}x`);
  }
  const before = beforeRev ? results[1] : null;
  if (before) {
    const ratio = (a: number | null, b: number | null) => (a && b ? `${(a / b).toFixed(2)}x` : '-');
    console.log(`this tree / ${beforeRev}: ${ratio(ours.pagesPerSecond, before.pagesPerSecond)} pages/s one document at a time, ${ratio(ours.pagesPerCpuSecond, before.pagesPerCpuSecond)} per CPU-second, ${ratio(ours.parallelPagesPerSecond, before.parallelPagesPerSecond)} with ${cores} documents at once`);
  }
  if (steadyPasses > 0) {
    console.log(`\nSteady state, ${cores} documents at once, after ${steadyPasses} more untimed passes (pages/s, medians of ${rounds} rounds):`);
    for (const r of results) if (r.steadyPagesPerSecond) console.log(`  ${r.name.padEnd(30)}${r.steadyPagesPerSecond.toFixed(0).padStart(9)}`);
  }
  console.log(`load average after: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  if (showFailures) for (const f of [...ours.report.failures, ...ours.holdout.failures]) console.log('FAIL', JSON.stringify(f));
}

await main();
