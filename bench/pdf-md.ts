/**
 * pdf-md quality and speed beside other converters, in one run, on the documents of the
 * olmOCR-bench-style unit tests (test/fixtures/md-cases.ts: the quality corpus plus the
 * structure set in test/fixtures/quality/).
 *
 * For each converter: the pass rate per category (absent, present, order, table, heading,
 * not_heading, code) and overall, and pages per second over all the documents, one document
 * at a time in one thread (pdf-md through runTool in this thread; the others as their own
 * processes, timed from spawn to exit). Converters:
 * - pdf-md: this checkout's src/ (and, with `--before <git revision>`, that revision's src/
 *   beside it, from `git archive` into a temporary directory sharing node_modules);
 * - pdftotext and pdftotext -layout (poppler-utils; installed with apt-get when missing and root);
 * - @llamaindex/liteparse (Markdown output, OCR off) when LITEPARSE_DIR names a folder where it
 *   is installed (`npm i @llamaindex/liteparse` there; it is not a dependency of this project).
 *
 *   npx tsx bench/pdf-md.ts [rounds] [--before <rev>] [--failures]
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CATEGORIES } from '../test/fixtures/md-cases.ts';
import { caseDocuments, rate, scoreOutputs, type QualityReport } from '../test/fixtures/md-checks.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
const beforeRev = args.includes('--before') ? args[args.indexOf('--before') + 1] : null;
const showFailures = args.includes('--failures');

type Convert = (doc: { name: string; file: string; pdf: Buffer }) => Promise<string>;

interface Result {
  name: string;
  report: QualityReport;
  pagesPerSecond: number;
}

const docs = caseDocuments();

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

async function measure(name: string, convert: Convert, pages: number): Promise<Result> {
  const outputs = new Map<string, string>();
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (const d of docs) outputs.set(d.name, await convert(d));
    best = Math.min(best, performance.now() - t0);
  }
  return { name, report: scoreOutputs(outputs), pagesPerSecond: pages / (best / 1000) };
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
  console.log(`${docs.length} documents, ${pages} pages; ${rounds} round(s), best kept; one document at a time, one thread\n`);

  const results: Result[] = [];
  results.push(await measure('pdf-md (this tree)', await pdfMdFrom(ROOT), pages));
  if (beforeRev) results.push(await measure(`pdf-md (${beforeRev})`, await pdfMdFrom(beforeTree(beforeRev)), pages));
  if (havePoppler) {
    results.push(await measure('pdftotext', async (d) => (await run('pdftotext', ['-enc', 'UTF-8', d.file, '-'], { maxBuffer: 1 << 28 })).stdout, pages));
    results.push(await measure('pdftotext -layout', async (d) => (await run('pdftotext', ['-layout', '-enc', 'UTF-8', d.file, '-'], { maxBuffer: 1 << 28 })).stdout, pages));
  }
  const lpDir = process.env.LITEPARSE_DIR;
  const lpEntry = lpDir ? path.join(lpDir, 'node_modules/@llamaindex/liteparse/dist/lib.js') : '';
  if (lpDir && existsSync(lpEntry)) {
    const { LiteParse } = await import(pathToFileURL(lpEntry).href);
    const parser = new LiteParse({ ocrEnabled: false, outputFormat: 'markdown' });
    results.push(await measure('liteparse (markdown, OCR off)', async (d) => (await parser.parse(d.file)).text as string, pages));
  } else console.log('liteparse: skipped (set LITEPARSE_DIR to a folder with @llamaindex/liteparse installed)\n');

  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
  const head = ['converter'.padEnd(30), ...CATEGORIES.map((c) => c.padStart(12)), 'overall'.padStart(14), 'pages/s'.padStart(9)].join('');
  console.log(head);
  for (const r of results) {
    const cells = CATEGORIES.map((c) => `${r.report.byCategory[c].passed}/${r.report.byCategory[c].total}`.padStart(6) + pct(rate(r.report.byCategory[c])).slice(1));
    console.log([r.name.padEnd(30), ...cells.map((c) => c.padStart(12)), `${r.report.overall.passed}/${r.report.overall.total} ${pct(rate(r.report.overall)).trim()}`.padStart(14), r.pagesPerSecond.toFixed(0).padStart(9)].join(''));
  }
  const ours = results[0];
  const ptt = results.find((r) => r.name === 'pdftotext');
  if (ptt) console.log(`\npdf-md / pdftotext pages per second: ${(ours.pagesPerSecond / ptt.pagesPerSecond).toFixed(2)}x`);
  if (showFailures) for (const f of ours.report.failures) console.log('FAIL', JSON.stringify(f));
}

await main();
