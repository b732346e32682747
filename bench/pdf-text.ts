/**
 * pdf-text throughput: a generated 200-page PDF through the tool pool, beside poppler's
 * pdftotext on the same file in the same run. Prints pages per second for both and the
 * ratio (pool / pdftotext), for one document at a time (latency) and for as many
 * documents at once as there are cores (throughput). One document alone is split over the
 * idle workers (page ranges in parallel); the same run without splitting is printed beside it.
 *
 *   npx tsx bench/pdf-text.ts [pages] [rounds]      (or: npm run bench -- pdf-text)
 *
 * pdftotext comes from Debian's poppler-utils; when it is missing and we are root, the
 * benchmark installs it with apt-get.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { silentLogger } from '../src/log.ts';
import { createToolPool } from '../src/tools/tool-pool.ts';
import { textPdf } from '../test/fixtures/raw-pdf.ts';

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

export interface BenchResult {
  pages: number;
  cores: number;
  poolPagesPerSecond: number;
  /** One document at a time with splitting off (splitMinPages: Infinity): one worker per document. */
  poolUnsplitPagesPerSecond: number;
  poolThroughputPagesPerSecond: number;
  pdftotextPagesPerSecond: number | null;
  pdftotextThroughputPagesPerSecond: number | null;
}

export async function runPdfTextBench(pages = 200, rounds = 5): Promise<BenchResult> {
  const cores = os.availableParallelism();
  const { bytes } = textPdf({ pages });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paycall-bench-'));
  const file = path.join(dir, 'bench.pdf');
  writeFileSync(file, bytes);
  console.log(`document: ${pages} pages, ${(bytes.length / 1024).toFixed(0)} KB; ${cores} cores; ${rounds} rounds`);

  const unsplitPps = await singleDocumentPagesPerSecond(bytes, pages, rounds, Infinity);
  const pool = createToolPool({ workers: 0, jobTimeoutMs: 600_000, jobMemoryMb: 2048, log: silentLogger, inspectWorkers: 0 });
  try {
    // Warm every worker (thread start, pdf.js load) so only conversion is timed.
    await Promise.all(Array.from({ length: cores }, () => pool.run('pdf-text', textPdf({ pages: 2 }).bytes)));
    let words = 0;
    const single: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t = performance.now();
      const result = await pool.run('pdf-text', new Uint8Array(bytes));
      single.push((performance.now() - t) / 1000);
      words = result.text.split(/\s+/).filter(Boolean).length;
    }
    const t = performance.now();
    await Promise.all(Array.from({ length: cores }, () => pool.run('pdf-text', new Uint8Array(bytes))));
    const parallel = (performance.now() - t) / 1000;
    const poolPps = pages / median(single);
    const poolThroughput = (pages * cores) / parallel;
    console.log(`pool     pdf-text : ${poolPps.toFixed(0)} pages/s one document at a time (median ${(median(single) * 1000).toFixed(0)} ms), ${poolThroughput.toFixed(0)} pages/s with ${cores} documents at once; ${words} words`);
    console.log(`pool, no splitting: ${unsplitPps.toFixed(0)} pages/s one document at a time (one worker per document)`);

    let popplerPps: number | null = null;
    let popplerThroughput: number | null = null;
    if (ensurePdftotext()) {
      const times: number[] = [];
      let popplerWords = 0;
      for (let r = 0; r < rounds; r++) {
        const t0 = performance.now();
        const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 256 * 1024 * 1024 });
        times.push((performance.now() - t0) / 1000);
        popplerWords = stdout.split(/\s+/).filter(Boolean).length;
      }
      const t1 = performance.now();
      await Promise.all(Array.from({ length: cores }, () => run('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 256 * 1024 * 1024 })));
      const popplerParallel = (performance.now() - t1) / 1000;
      popplerPps = pages / median(times);
      popplerThroughput = (pages * cores) / popplerParallel;
      console.log(`pdftotext         : ${popplerPps.toFixed(0)} pages/s one document at a time (median ${(median(times) * 1000).toFixed(0)} ms), ${popplerThroughput.toFixed(0)} pages/s with ${cores} documents at once; ${popplerWords} words`);
      console.log(`ratio pool/pdftotext: ${(poolPps / popplerPps).toFixed(2)} (one document), ${(poolThroughput / popplerThroughput).toFixed(2)} (${cores} at once)`);
    } else {
      console.log('pdftotext unavailable (install poppler-utils): no baseline, no ratio');
    }
    return { pages, cores, poolPagesPerSecond: poolPps, poolUnsplitPagesPerSecond: unsplitPps, poolThroughputPagesPerSecond: poolThroughput, pdftotextPagesPerSecond: popplerPps, pdftotextThroughputPagesPerSecond: popplerThroughput };
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median pages/s of one document at a time through a fresh pool with the given split threshold. */
async function singleDocumentPagesPerSecond(bytes: Uint8Array, pages: number, rounds: number, splitMinPages: number): Promise<number> {
  const cores = os.availableParallelism();
  const pool = createToolPool({ workers: 0, jobTimeoutMs: 600_000, jobMemoryMb: 2048, log: silentLogger, inspectWorkers: 0, splitMinPages });
  try {
    await Promise.all(Array.from({ length: cores }, () => pool.run('pdf-text', textPdf({ pages: 2 }).bytes)));
    const times: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t = performance.now();
      await pool.run('pdf-text', new Uint8Array(bytes));
      times.push((performance.now() - t) / 1000);
    }
    return pages / median(times);
  } finally {
    await pool.close();
  }
}

/** Entry point for `npm run bench` and for running this file directly. */
export async function main(): Promise<void> {
  await runPdfTextBench();
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [pages, rounds] = process.argv.slice(2).map(Number);
  await runPdfTextBench(pages || undefined, rounds || undefined);
}
