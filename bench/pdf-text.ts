/**
 * pdf-text throughput on the generated 200-page PDF and on the quality corpus (real PDFs,
 * test/fixtures/corpus/), beside poppler's pdftotext on the same files in the same run.
 *
 * For each document: pages per second through the tool pool for one document at a time (split
 * over the idle workers, pages taken in chunks; beside it, in "(halves)", the split of before,
 * a fixed half per worker) and for as many documents at once as there are cores, pdftotext the
 * same two ways, and the ratios (pool / pdftotext); then the same as pages per CPU-second (the
 * process's CPU time, all its threads, while the pool ran; pdftotext's from its children), the
 * figures that hold when other work shares the machine. Then, in this thread, the per-page time
 * split of the tool's engine (parse: document + page; text: characters -> runs, by the fast
 * content-stream reader or, on the pages it declines, PDFium's text page; layout: reading
 * order, blocks, text) and how many pages the fast reader took, beside PDFium alone (the engine
 * before the fast reader) and the pdf.js engine used before that (bench/pdfjs-text-engine.ts),
 * so the before/after comparisons are in the same run, each with pages per CPU-second and its
 * ratio to pdftotext (steady when the machine is shared).
 *
 * With `--before <git revision>`, that revision's src/ (git archive, into a temporary directory
 * that shares node_modules) runs beside this one in the same run: its pool one document at a
 * time and `cores` at once, and its engine in this thread (pages per CPU-second), each with its
 * ratio to pdftotext.
 *
 *   npx tsx bench/pdf-text.ts [rounds] [--corpus-only|--generated-only] [--no-pdfjs] [--before <rev>]
 *   (or: npm run bench -- pdf-text)
 *
 * pdftotext comes from Debian's poppler-utils; when it is missing and we are root, the
 * benchmark installs it with apt-get.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { silentLogger } from '../src/log.ts';
import { openPdf } from '../src/tools/pdf/open-pdf.ts';
import { readingOrder, readPdfiumRuns } from '../src/tools/pdf/page-layout.ts';
import { layoutRuns } from '../src/tools/pdf/text-runs.ts';
import { fragmentsToText } from '../src/tools/pdf-text.tool.ts';
import { createToolPool, type ToolPool, type ToolPoolOptions } from '../src/tools/tool-pool.ts';
import { corpusDocuments } from '../test/fixtures/corpus-fixtures.ts';
import { textPdf } from '../test/fixtures/raw-pdf.ts';
import { pdfjsText, type EngineTimes } from './pdfjs-text-engine.ts';

const run = promisify(execFile);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function havePdftotext(): boolean {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function ensurePdftotext(): boolean {
  if (havePdftotext()) return true;
  if (process.getuid?.() !== 0) return false;
  console.log('pdftotext missing: installing poppler-utils with apt-get ...');
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'poppler-utils'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch {
    return false;
  }
  return havePdftotext();
}

interface BenchDocument {
  name: string;
  bytes: Uint8Array;
  pages: number;
  file: string;
}

export interface DocumentFigures {
  name: string;
  pages: number;
  /** Pool, one document at a time (split over idle workers, pages in chunks), pages/s. */
  pool: number;
  /** The same with the split of before: a fixed half of the pages per worker. */
  poolHalves: number;
  /** Pool, `cores` copies at once, pages/s. */
  poolParallel: number;
  pdftotext: number | null;
  pdftotextParallel: number | null;
  /**
   * Pages per CPU-second of the whole process (its worker threads) while the pool ran one
   * document at a time / `cores` at once, and of pdftotext the same two ways: what the work
   * costs, whatever else the machine is doing.
   */
  poolCpu: number;
  poolParallelCpu: number;
  pdftotextParallelCpu: number | null;
  /** This thread, the tool's engine (fast reader, PDFium where it declines): ms per page. */
  engine: EngineTimes & { pagesPerSecond: number };
  engineCpu: number;
  /** Pages the fast reader read (the rest went to PDFium). */
  fastPages: number;
  /** This thread, PDFium alone (the engine before the fast reader): ms per page. */
  pdfium: EngineTimes & { pagesPerSecond: number };
  /** Pages per CPU-second: PDFium alone in this thread, and pdftotext (one process at a time). */
  pdfiumCpu: number;
  pdftotextCpu: number | null;
  /**
   * With --before: that revision's pool (one document, `cores` at once, pages/s) and its
   * engine in this thread (pages per CPU-second).
   */
  before: { pool: number; poolParallel: number; threadCpu: number } | null;
  /** This thread, pdf.js engine (before): ms per page; null with --no-pdfjs. */
  pdfjs: (EngineTimes & { pagesPerSecond: number }) | null;
}

/**
 * CPU seconds used so far by waited-for child processes (pdftotext), from /proc/self/stat
 * (cutime + cstime, clock ticks of 10 ms): with other work on the machine, wall-clock figures
 * swing; CPU time per page does not, so both are printed.
 */
function childCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 of stat(5), counted from the state field (3).
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** CPU seconds of this process (the bench thread while the pool is idle). */
const ownCpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Times a job `rounds` times (after one warm-up) and returns the median seconds. */
async function medianSeconds(rounds: number, job: () => Promise<unknown>): Promise<number> {
  await job();
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    await job();
    times.push((performance.now() - t) / 1000);
  }
  return median(times);
}

/** medianSeconds, and the CPU seconds that `cpu` counted over all runs (warm-up included: rounds + 1). */
async function timed(rounds: number, cpu: () => number, job: () => Promise<unknown>): Promise<{ seconds: number; cpuSeconds: number }> {
  const c0 = cpu();
  const seconds = await medianSeconds(rounds, job);
  return { seconds, cpuSeconds: Math.max(0.001, cpu() - c0) };
}

/**
 * The tool's text engine in this thread, its time split per stage: parse (open; PDFium's page
 * parse where PDFium reads the page), text (content stream -> runs by the fast reader, or
 * PDFium's text page -> runs where the fast reader declines the page),
 * layout (fragments, reading order, text). With `fastText: false`, PDFium alone (the engine
 * before the fast reader), in the same run.
 */
async function engineSplit(bytes: Uint8Array, fastText: boolean, counts?: { fastPages: number }): Promise<EngineTimes> {
  const times: EngineTimes = { parseMs: 0, textMs: 0, layoutMs: 0 };
  let t = performance.now();
  const doc = await openPdf(bytes, { fastText });
  times.parseMs += performance.now() - t;
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      t = performance.now();
      const page = doc.getPage(n);
      const t1 = performance.now();
      times.parseMs += t1 - t;
      const fast = page.fastText();
      let raw = fast;
      // PDFium parses the page only when it reads it: that is its parse, not text.
      let pageParse = 0;
      if (!raw) {
        const t3 = performance.now();
        void page.handle;
        pageParse = performance.now() - t3;
        raw = readPdfiumRuns(page);
      }
      const t2 = performance.now();
      times.parseMs += pageParse;
      times.textMs += t2 - t1 - pageParse;
      fragmentsToText(readingOrder(layoutRuns(raw).fragments));
      times.layoutMs += performance.now() - t2;
      if (fast && counts) counts.fastPages++;
      page.close();
    }
  } finally {
    doc.destroy();
  }
  return times;
}

/** Median split over rounds (by total), per page. */
async function engineFigures(pages: number, rounds: number, once: () => Promise<EngineTimes>): Promise<EngineTimes & { pagesPerSecond: number }> {
  await once();
  const all: EngineTimes[] = [];
  for (let r = 0; r < rounds; r++) all.push(await once());
  const total = (e: EngineTimes) => e.parseMs + e.textMs + e.layoutMs;
  const m = all.sort((a, b) => total(a) - total(b))[Math.floor(all.length / 2)];
  return { parseMs: m.parseMs / pages, textMs: m.textMs / pages, layoutMs: m.layoutMs / pages, pagesPerSecond: (pages * 1000) / total(m) };
}

/** Another revision's pool and engine, to measure before and after in one run (--before). */
interface Revision {
  pool: ToolPool;
  /** pdf-text of a whole document in this thread. */
  text(bytes: Uint8Array): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Extracts `rev`'s src/ into a temporary directory beside a link to this checkout's
 * node_modules and loads its pool and engine from there.
 */
async function loadRevision(rev: string, poolOptions: ToolPoolOptions): Promise<Revision> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paycall-before-'));
  const tar = execFileSync('git', ['archive', '--format=tar', rev, 'src', 'package.json'], { cwd: root, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  const load = async <M>(file: string): Promise<M> => (await import(pathToFileURL(path.join(dir, file)).href)) as M;
  const pools = await load<typeof import('../src/tools/tool-pool.ts')>('src/tools/tool-pool.ts');
  const open = await load<typeof import('../src/tools/pdf/open-pdf.ts')>('src/tools/pdf/open-pdf.ts');
  const tool = await load<typeof import('../src/tools/pdf-text.tool.ts')>('src/tools/pdf-text.tool.ts');
  const pool = pools.createToolPool(poolOptions);
  return {
    pool,
    async text(bytes) {
      const doc = await open.openPdf(bytes);
      try {
        await tool.pdfText(doc);
      } finally {
        doc.destroy();
      }
    },
    async close() {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function measure(doc: BenchDocument, pools: { chunks: ToolPool; halves: ToolPool }, before: Revision | null, cores: number, rounds: number, poppler: boolean, withPdfjs: boolean): Promise<DocumentFigures> {
  const half = Math.max(1, Math.ceil(rounds / 2));
  const once = (pool: ToolPool) => pool.run('pdf-text', new Uint8Array(doc.bytes));
  const atOnce = (pool: ToolPool) => Promise.all(Array.from({ length: cores }, () => once(pool)));
  const single = await timed(rounds, ownCpuSeconds, () => once(pools.chunks));
  const halves = await medianSeconds(rounds, () => once(pools.halves));
  const parallel = await timed(half, ownCpuSeconds, () => atOnce(pools.chunks));
  let beforeFigures: DocumentFigures['before'] = null;
  if (before) {
    const pool = doc.pages / (await medianSeconds(rounds, () => once(before.pool)));
    const poolParallel = (doc.pages * cores) / (await medianSeconds(half, () => atOnce(before.pool)));
    const thread = await timed(rounds, ownCpuSeconds, () => before.text(doc.bytes));
    beforeFigures = { pool, poolParallel, threadCpu: (doc.pages * (rounds + 1)) / thread.cpuSeconds };
  }
  let pdftotext: number | null = null;
  let pdftotextParallel: number | null = null;
  let pdftotextCpu: number | null = null;
  let pdftotextParallelCpu: number | null = null;
  if (poppler) {
    const args = ['-enc', 'UTF-8', doc.file, '-'];
    const opts = { maxBuffer: 256 * 1024 * 1024 };
    const one = await timed(rounds, childCpuSeconds, () => run('pdftotext', args, opts));
    pdftotext = doc.pages / one.seconds;
    pdftotextCpu = (doc.pages * (rounds + 1)) / one.cpuSeconds;
    const many = await timed(half, childCpuSeconds, () => Promise.all(Array.from({ length: cores }, () => run('pdftotext', args, opts))));
    pdftotextParallel = (doc.pages * cores) / many.seconds;
    pdftotextParallelCpu = (doc.pages * cores * (half + 1)) / many.cpuSeconds;
  }
  const counts = { fastPages: 0 };
  const cpu1 = ownCpuSeconds();
  const engine = await engineFigures(doc.pages, rounds, () => engineSplit(doc.bytes, true, counts));
  const engineCpu = (doc.pages * (rounds + 1)) / (ownCpuSeconds() - cpu1);
  const cpu2 = ownCpuSeconds();
  const pdfium = await engineFigures(doc.pages, rounds, () => engineSplit(doc.bytes, false));
  const pdfiumCpu = (doc.pages * (rounds + 1)) / (ownCpuSeconds() - cpu2);
  const pdfjs = withPdfjs
    ? await engineFigures(doc.pages, Math.max(1, Math.ceil(rounds / 2)), async () => {
        const times: EngineTimes = { parseMs: 0, textMs: 0, layoutMs: 0 };
        await pdfjsText(doc.bytes, times);
        return times;
      })
    : null;
  return {
    name: doc.name,
    pages: doc.pages,
    pool: doc.pages / single.seconds,
    poolHalves: doc.pages / halves,
    poolParallel: (doc.pages * cores) / parallel.seconds,
    pdftotext,
    pdftotextParallel,
    poolCpu: (doc.pages * (rounds + 1)) / single.cpuSeconds,
    poolParallelCpu: (doc.pages * cores * (half + 1)) / parallel.cpuSeconds,
    pdftotextParallelCpu,
    engine,
    engineCpu,
    fastPages: counts.fastPages / (rounds + 1),
    pdfium,
    pdfiumCpu,
    pdftotextCpu,
    before: beforeFigures,
    pdfjs,
  };
}

const f0 = (n: number | null) => (n === null ? '-' : n.toFixed(0));
const f2 = (n: number | null) => (n === null ? '-' : n.toFixed(2));
const ratio = (a: number, b: number | null) => (b ? a / b : null);
const split = (e: EngineTimes) => `${e.parseMs.toFixed(2)}/${e.textMs.toFixed(2)}/${e.layoutMs.toFixed(2)}`;

/** Pool and pdftotext, one document and `cores` at once, then the two ratios. */
const againstPdftotext = (pool1: number, poolN: number, pdftotext1: number | null, pdftotextN: number | null): string[] => [
  f0(pool1),
  f0(poolN),
  f0(pdftotext1),
  f0(pdftotextN),
  f2(ratio(pool1, pdftotext1)),
  f2(ratio(poolN, pdftotextN)),
];

function printTable(rows: DocumentFigures[], cores: number): void {
  const withBefore = rows.some((r) => r.before);
  const header = [
    'document',
    'pages',
    'pool 1 doc',
    `pool ${cores} docs`,
    'pdftotext 1',
    `pdftotext ${cores}`,
    'ratio 1',
    `ratio ${cores}`,
    'halves 1',
    'ratio',
    'CPU: pool 1',
    `pool ${cores}`,
    'pdftotext 1',
    `pdftotext ${cores}`,
    'ratio 1',
    `ratio ${cores}`,
    'thread',
    'ms/page parse/text/layout',
    'fast pages',
    'CPU: thread',
    'ratio',
    'PDFium only',
    'ms/page parse/text/layout',
    'CPU: thread',
    'ratio',
    ...(withBefore ? ['before: pool 1', `pool ${cores}`, 'ratio 1', `ratio ${cores}`, 'CPU: thread', 'ratio'] : []),
    'pdf.js thread (before)',
    'ms/page parse/text/layout',
  ];
  const lines = rows.map((r) => [
    r.name,
    String(r.pages),
    ...againstPdftotext(r.pool, r.poolParallel, r.pdftotext, r.pdftotextParallel),
    f0(r.poolHalves),
    f2(ratio(r.poolHalves, r.pdftotext)),
    ...againstPdftotext(r.poolCpu, r.poolParallelCpu, r.pdftotextCpu, r.pdftotextParallelCpu),
    f0(r.engine.pagesPerSecond),
    split(r.engine),
    `${f0(r.fastPages)}/${r.pages}`,
    f0(r.engineCpu),
    f2(ratio(r.engineCpu, r.pdftotextCpu)),
    f0(r.pdfium.pagesPerSecond),
    split(r.pdfium),
    f0(r.pdfiumCpu),
    f2(ratio(r.pdfiumCpu, r.pdftotextCpu)),
    ...(withBefore
      ? r.before
        ? [f0(r.before.pool), f0(r.before.poolParallel), f2(ratio(r.before.pool, r.pdftotext)), f2(ratio(r.before.poolParallel, r.pdftotextParallel)), f0(r.before.threadCpu), f2(ratio(r.before.threadCpu, r.pdftotextCpu))]
        : ['-', '-', '-', '-', '-', '-']
      : []),
    r.pdfjs ? f0(r.pdfjs.pagesPerSecond) : '-',
    r.pdfjs ? split(r.pdfjs) : '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(fmt(header));
  for (const l of lines) console.log(fmt(l));
}

export async function runPdfTextBench(opts: { rounds?: number; generated?: boolean; corpus?: boolean; pdfjs?: boolean; before?: string } = {}): Promise<DocumentFigures[]> {
  const rounds = opts.rounds ?? 5;
  const cores = os.availableParallelism();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paycall-bench-'));
  const docs: BenchDocument[] = [];
  const add = (name: string, bytes: Uint8Array, pages: number) => {
    const file = path.join(dir, `${name}.pdf`);
    writeFileSync(file, bytes);
    docs.push({ name, bytes, pages, file });
  };
  if (opts.generated !== false) add('generated-200', textPdf({ pages: 200 }).bytes, 200);
  if (opts.corpus !== false) {
    for (const d of corpusDocuments()) {
      const doc = await openPdf(d.pdf);
      add(d.name, d.pdf, doc.numPages);
      doc.destroy();
    }
  }
  const poppler = ensurePdftotext();
  console.log(`${docs.length} documents, ${cores} cores, ${rounds} rounds (medians); pool = tool pool with ${cores} workers, pdf-text`);
  if (!poppler) console.log('pdftotext unavailable (install poppler-utils): no baseline, no ratio');
  const poolOptions: ToolPoolOptions = { workers: 0, jobTimeoutMs: 600_000, jobMemoryMb: 2048, log: silentLogger, inspectWorkers: 0 };
  const pools = { chunks: createToolPool({ ...poolOptions, splitPages: 'chunks' }), halves: createToolPool({ ...poolOptions, splitPages: 'halves' }) };
  const before = opts.before ? await loadRevision(opts.before, poolOptions) : null;
  if (opts.before) console.log(`before: ${opts.before} (${execFileSync('git', ['rev-parse', '--short', opts.before], { encoding: 'utf8' }).trim()})`);
  const rows: DocumentFigures[] = [];
  try {
    // Warm every worker (thread start, PDFium compile) so only conversion is timed.
    for (const pool of [...Object.values(pools), ...(before ? [before.pool] : [])]) await Promise.all(Array.from({ length: cores }, () => pool.run('pdf-text', textPdf({ pages: 2 }).bytes)));
    for (const doc of docs) rows.push(await measure(doc, pools, before, cores, rounds, poppler, opts.pdfjs !== false));
  } finally {
    await Promise.all([...Object.values(pools).map((pool) => pool.close()), before?.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(rows, cores);
  const corpus = rows.filter((r) => r.name !== 'generated-200');
  if (corpus.length && poppler) {
    // Corpus totals: all its pages over the summed times, so long documents weigh by their pages.
    const pages = corpus.reduce((a, r) => a + r.pages, 0);
    const time = (pps: (r: DocumentFigures) => number | null) => corpus.reduce((a, r) => a + r.pages / (pps(r) ?? NaN), 0);
    const pool1 = pages / time((r) => r.pool);
    const poolH = pages / time((r) => r.poolHalves);
    const poolN = pages / time((r) => r.poolParallel);
    const pop1 = pages / time((r) => r.pdftotext);
    const popN = pages / time((r) => r.pdftotextParallel);
    const cpu1 = pages / time((r) => r.poolCpu);
    const cpuN = pages / time((r) => r.poolParallelCpu);
    const popCpu1 = pages / time((r) => r.pdftotextCpu);
    const popCpuN = pages / time((r) => r.pdftotextParallelCpu);
    console.log(
      `corpus (${corpus.length} files, ${pages} pages): pool ${f0(pool1)} pages/s one at a time (halves ${f0(poolH)}), ${f0(poolN)} with ${cores} at once; ` +
        `pdftotext ${f0(pop1)} / ${f0(popN)}; ratio ${f2(pool1 / pop1)} (halves ${f2(poolH / pop1)}) / ${f2(poolN / popN)}; ` +
        `pages per CPU-second: pool ${f0(cpu1)} / ${f0(cpuN)}, pdftotext ${f0(popCpu1)} / ${f0(popCpuN)}, ratio ${f2(cpu1 / popCpu1)} / ${f2(cpuN / popCpuN)}`,
    );
    if (corpus.every((r) => r.before)) {
      const before1 = pages / time((r) => r.before!.pool);
      const beforeN = pages / time((r) => r.before!.poolParallel);
      const threadNow = pages / time((r) => r.engineCpu);
      const threadBefore = pages / time((r) => r.before!.threadCpu);
      console.log(
        `corpus before (${opts.before}): pool ${f0(before1)} / ${f0(beforeN)} pages/s, ratio ${f2(before1 / pop1)} / ${f2(beforeN / popN)}; ` +
          `this thread, pages per CPU-second: before ${f0(threadBefore)}, now ${f0(threadNow)} (pdftotext ${f0(popCpu1)})`,
      );
    }
  }
  return rows;
}

/** Entry point for `npm run bench` and for running this file directly. */
export async function main(): Promise<void> {
  await runPdfTextBench();
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const rounds = Number(args.find((a) => /^\d+$/.test(a))) || undefined;
  const before = args.includes('--before') ? args[args.indexOf('--before') + 1] : undefined;
  await runPdfTextBench({ rounds, generated: !args.includes('--corpus-only'), corpus: !args.includes('--generated-only'), pdfjs: !args.includes('--no-pdfjs'), before });
}
