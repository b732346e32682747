/**
 * The worker pool with real worker threads and real documents: results, queueing, the
 * per-job time limit, replacement of a dead worker, and an event loop that keeps turning
 * while a large PDF converts, and one document split over idle workers (output identical to
 * the unsplit run). No timing thresholds: only what happened.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/http/app-error.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { PDFDocument } from 'pdf-lib';
import { createOcrEngine } from '../../src/tools/invoice/ocr-engine.ts';
import { runTool } from '../../src/tools/run-tool.ts';
import { createToolPool, type ToolPool } from '../../src/tools/tool-pool.ts';
import { claimRanges, partRange } from '../../src/tools/tool-split.ts';
import { imageOnlyPagePdf, multiPagePdf, onePagePdf, rotatedPdf, structuredPdf } from '../fixtures/pdf-fixtures.ts';
import { textPdf } from '../fixtures/raw-pdf.ts';

/** A logger that keeps its records, so tests can check what the pool logged. */
function memoryLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { log: createLogger('debug', {}, (line) => lines.push(JSON.parse(line))), lines };
}

const isAppError = (code: string, status: number) => (error: unknown) => error instanceof AppError && error.code === code && error.status === status;

describe('tool pool', () => {
  let pool: ToolPool;
  let logged: ReturnType<typeof memoryLogger>;

  before(() => {
    logged = memoryLogger();
    pool = createToolPool({ workers: 2, jobTimeoutMs: 60_000, jobMemoryMb: 512, log: logged.log });
  });
  after(() => pool.close());

  it('runs a tool in a worker and logs start, progress and finish with timings', async () => {
    const bytes = await onePagePdf('Pool says hello');
    const result = await pool.run('pdf-text', bytes, { requestId: 'req-1' });
    assert.equal(result.text, 'Pool says hello');
    assert.equal(result.pages, 1);
    const mine = logged.lines.filter((l) => l.requestId === 'req-1');
    assert.ok(mine.some((l) => l.msg === 'tool job started'));
    assert.ok(mine.some((l) => l.msg === 'tool job progress' && l.pagesDone === 1));
    const finished = mine.find((l) => l.msg === 'tool job finished');
    assert.ok(finished && typeof finished.ms === 'number' && finished.pages === 1);
  });

  it('transfers the bytes to the worker instead of copying them', async () => {
    const bytes = new Uint8Array(await onePagePdf('moved'));
    const pending = pool.run('pdf-text', bytes);
    assert.equal(bytes.byteLength, 0, 'the caller’s buffer is detached once the job is dispatched or queued');
    assert.equal((await pending).text, 'moved');
  });

  it('queues more jobs than workers and answers each one', async () => {
    const docs = await Promise.all(Array.from({ length: 6 }, (_, i) => onePagePdf(`Document ${i}`)));
    const results = await Promise.all(docs.map((d) => pool.run('pdf-text', d)));
    assert.deepEqual(
      results.map((r) => r.text),
      docs.map((_, i) => `Document ${i}`),
    );
  });

  it('answers AppErrors from the worker as AppErrors', async () => {
    await assert.rejects(pool.run('pdf-text', Buffer.from('{"not":"a pdf"}')), isAppError('invalid_document', 422));
  });

  it('keeps the event loop turning while a large PDF converts', async () => {
    const { bytes } = textPdf({ pages: 300 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const result = await pool.run('pdf-json', bytes);
      assert.equal(result.pages.length, 300);
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks > 0, 'timers fired while the document was converting');
  });

  it('stops a job at its time limit with 504 processing_timeout, and the pool keeps working', async () => {
    const { bytes } = textPdf({ pages: 2000 });
    await assert.rejects(pool.run('pdf-md', bytes, { timeoutMs: 50 }), isAppError('processing_timeout', 504));
    assert.ok(logged.lines.some((l) => l.msg === 'tool job timed out'));
    const again = await pool.run('pdf-text', await onePagePdf('after the timeout'));
    assert.equal(again.text, 'after the timeout');
    assert.equal(pool.stats().workers, 2);
  });

  it('inspects a large PDF in its own worker lane, leaving the caller its bytes', async () => {
    const { bytes } = textPdf({ pages: 2000, linesPerPage: 5 });
    assert.ok(bytes.length > 1024 * 1024);
    assert.deepEqual(await pool.inspect('pdf-md', bytes, { maxPages: 2000 }), { kind: 'pdf', pages: 2000 });
    assert.ok(logged.lines.some((l) => l.msg === 'tool job finished' && l.lane === 'inspect'));
    await assert.rejects(pool.inspect('pdf-md', bytes, { maxPages: 100 }), isAppError('body_too_large', 413));
    await assert.rejects(pool.inspect('pdf-md', bytes.subarray(0, bytes.length - 5000), { maxPages: 2000 }), isAppError('invalid_document', 422));
    assert.equal((await pool.run('pdf-text', bytes)).pages, 2000, 'the same bytes still run after inspection');
    assert.deepEqual(await pool.inspect('pdf-md', await onePagePdf(), { maxPages: 2000 }), { kind: 'pdf', pages: 1 }, 'small documents inline');
  });

  it('rejects new work after close', async () => {
    const other = createToolPool({ workers: 1, jobTimeoutMs: 10_000, jobMemoryMb: 256, log: logged.log });
    await other.close();
    await assert.rejects(other.run('pdf-text', await onePagePdf()), isAppError('service_unavailable', 503));
  });
});

describe('tool pool with a small memory limit', () => {
  it('answers 422 document_too_complex when a job outgrows the limit, and replaces the worker', async () => {
    const { log, lines } = memoryLogger();
    const pool = createToolPool({ workers: 1, jobTimeoutMs: 120_000, jobMemoryMb: 48, log, inspectWorkers: 0 });
    try {
      // pdf-md keeps every page's layout until the heading levels are known: large for 2,000 pages.
      await assert.rejects(pool.run('pdf-md', textPdf({ pages: 2000 }).bytes), isAppError('document_too_complex', 422));
      assert.ok(lines.some((l) => l.msg === 'tool job exceeded the memory limit'));
      assert.equal((await pool.run('pdf-text', await onePagePdf('small is fine'))).text, 'small is fine');
    } finally {
      await pool.close();
    }
  });
});

describe('tool pool with a small memory limit for PDFium', () => {
  it('counts PDFium\'s WebAssembly memory against the limit, then starts the next job in a fresh worker', async () => {
    // A 48 MB document cannot fit in a 40 MB budget: PDFium holds a copy of it. WebAssembly
    // memory is not V8 heap, so this is the check in pdf-pages.ts, not resourceLimits.
    const pool = createToolPool({ workers: 1, jobTimeoutMs: 120_000, jobMemoryMb: 40, log: memoryLogger().log, inspectWorkers: 0, splitMinPages: Infinity });
    try {
      const { bytes } = textPdf({ pages: 2000, linesPerPage: 2, imageBytesPerPage: 24_000 });
      await assert.rejects(pool.run('pdf-text', bytes), isAppError('document_too_complex', 422));
      assert.equal((await pool.run('pdf-text', await onePagePdf('small is fine'))).text, 'small is fine');
    } finally {
      await pool.close();
    }
  });
});

describe('tool pool with a worker that crashes', () => {
  it('answers 500 for the job that was running, replaces the worker and runs the next job', async () => {
    const { log, lines } = memoryLogger();
    const pool = createToolPool({ workers: 1, jobTimeoutMs: 60_000, jobMemoryMb: 256, log, workerUrl: new URL('../fixtures/crashing-tool-worker.mjs', import.meta.url) });
    try {
      await assert.rejects(pool.run('pdf-text', Buffer.from('CRASH please')), isAppError('internal_error', 500));
      assert.ok(lines.some((l) => l.msg === 'tool worker died during a job'));
      const result = await pool.run('pdf-text', await onePagePdf('still alive'));
      assert.equal(result.text, 'still alive');
      assert.equal(pool.stats().workers, 1);
    } finally {
      await pool.close();
    }
  });

  it('a message the pool cannot handle fails its job with 500 and replaces the worker; it never escapes to the process', async () => {
    const { log, lines } = memoryLogger();
    const pool = createToolPool({ workers: 1, jobTimeoutMs: 60_000, jobMemoryMb: 256, log, workerUrl: new URL('../fixtures/crashing-tool-worker.mjs', import.meta.url) });
    try {
      await assert.rejects(pool.run('pdf-text', Buffer.from('GARBL please')), isAppError('internal_error', 500));
      assert.ok(lines.some((l) => l.msg === 'a tool worker message could not be handled'));
      assert.equal((await pool.run('pdf-text', await onePagePdf('still here'))).text, 'still here');
      assert.equal(pool.stats().workers, 1);
    } finally {
      await pool.close();
    }
  });
});

/**
 * One document of every layout the fixtures draw (paragraphs, table and columns, rotated
 * pages, an image-only page), several times over: pdf-lib copies the pages into one file.
 */
async function mixedPdf(rounds = 3): Promise<Uint8Array> {
  const sources = await Promise.all([multiPagePdf(), structuredPdf(), rotatedPdf(), imageOnlyPagePdf()]);
  const out = await PDFDocument.create();
  for (let r = 0; r < rounds; r++) {
    for (const { bytes } of sources) {
      const src = await PDFDocument.load(bytes);
      for (const page of await out.copyPages(src, src.getPageIndices())) out.addPage(page);
    }
  }
  return out.save();
}

const copy = (bytes: Uint8Array) => new Uint8Array(bytes);

describe('tool pool splitting one document across idle workers', () => {
  const workers = 3;
  let pool: ToolPool;
  let logged: ReturnType<typeof memoryLogger>;
  const ocr = createOcrEngine();
  let requests = 0;

  /** Runs a job and tells how many workers it used (from the pool's "started" log line). */
  const runLogged = async <T extends 'pdf-text' | 'pdf-json' | 'pdf-md'>(tool: T, bytes: Uint8Array, timeoutMs?: number) => {
    const requestId = `split-${++requests}`;
    const result = await pool.run(tool, bytes, { requestId, timeoutMs });
    const started = logged.lines.find((l) => l.requestId === requestId && l.msg === 'tool job started');
    return { result, parts: started?.parts as number, requestId };
  };

  /** Workers start asynchronously: run small jobs until one is split over every worker. */
  const untilAllIdle = async () => {
    for (let i = 0; i < 200; i++) if ((await runLogged('pdf-text', await onePagePdf('warm'))).parts === workers) return;
    assert.fail('the workers never became idle together');
  };

  before(async () => {
    logged = memoryLogger();
    pool = createToolPool({ workers, jobTimeoutMs: 60_000, jobMemoryMb: 512, log: logged.log, inspectWorkers: 0, splitMinPages: 4 });
    await untilAllIdle();
  });
  after(async () => {
    await pool.close();
    await ocr.close();
  });

  it('computes page ranges that cover the document once, in order', () => {
    for (const pages of [1, 3, 4, 5, 7, 31, 200]) {
      for (const count of [1, 2, 3, 8]) {
        const ranges = Array.from({ length: count }, (_, index) => partRange(pages, { index, count, minPages: 4 })).filter((r) => r !== null);
        const covered = ranges.flatMap((r) => Array.from({ length: r.last - r.first + 1 }, (_, i) => r.first + i));
        assert.deepEqual(covered, Array.from({ length: pages }, (_, i) => i + 1), `${pages} pages in ${count} parts`);
        if (pages < 4) assert.equal(ranges.length, 1, 'short documents are not split');
      }
    }
  });

  it('hands out chunks from a shared counter that cover the document once, whichever part takes them', () => {
    for (const pages of [1, 3, 4, 5, 31, 200, 2000]) {
      for (const count of [1, 2, 3]) {
        const cursor = new Int32Array(new SharedArrayBuffer(4));
        const parts = Array.from({ length: count }, (_, index) => claimRanges(pages, { index, count, minPages: 4, cursor }));
        // The parts take turns unevenly, as workers on unequal cores would.
        const taken: { part: number; first: number; last: number }[] = [];
        for (let turn = 0, open = new Set(parts.keys()); open.size; turn++) {
          const part = [...open][turn % 3 === 0 ? 0 : open.size - 1];
          const next = parts[part].next();
          if (next.done) open.delete(part);
          else taken.push({ part, ...next.value });
        }
        const covered = taken.sort((a, b) => a.first - b.first).flatMap((r) => Array.from({ length: r.last - r.first + 1 }, (_, i) => r.first + i));
        assert.deepEqual(covered, Array.from({ length: pages }, (_, i) => i + 1), `${pages} pages in ${count} parts`);
        if (pages < 4) assert.ok(taken.every((r) => r.part === 0), 'short documents are done by the first part');
      }
    }
  });

  it('gives pdf-text output byte-identical to the unsplit run, pages in order', async () => {
    const bytes = await mixedPdf();
    const whole = await runTool('pdf-text', copy(bytes), { ocr: () => ocr });
    assert.equal(whole.pages, 33);
    const split = await runLogged('pdf-text', copy(bytes));
    assert.equal(split.parts, workers, 'the job ran on every worker');
    assert.deepEqual(split.result, whole);
    assert.equal(split.result.text.split('\f').length, 33);
    const progress = logged.lines.filter((l) => l.requestId === split.requestId && l.msg === 'tool job progress');
    assert.ok(progress.length > 0 && progress.every((l) => typeof l.pagesDone === 'number'));
    const finished = logged.lines.find((l) => l.requestId === split.requestId && l.msg === 'tool job finished');
    assert.equal(finished?.pages, 33);
    assert.equal(finished?.parts, workers);
  });

  it('gives pdf-json output identical to the unsplit run, pages numbered in order', async () => {
    const bytes = await mixedPdf();
    const whole = await runTool('pdf-json', copy(bytes), { ocr: () => ocr });
    await untilAllIdle();
    const split = await runLogged('pdf-json', copy(bytes));
    assert.equal(split.parts, workers);
    assert.equal(JSON.stringify(split.result), JSON.stringify(whole));
    assert.deepEqual(
      split.result.pages.map((p) => p.page),
      Array.from({ length: 33 }, (_, i) => i + 1),
    );
  });

  it('does not split pdf-md, documents under the page threshold, or while other jobs wait', async () => {
    const bytes = await mixedPdf(1);
    await untilAllIdle();
    assert.equal((await runLogged('pdf-md', copy(bytes))).parts, 1);
    await untilAllIdle();
    const short = await runLogged('pdf-text', await onePagePdf('short'));
    assert.equal(short.parts, workers);
    assert.equal(short.result.text, 'short', 'helpers of a short document answer nothing; one part answers all');
    await untilAllIdle();
    // Four documents at once on three workers: each waits for, or takes, one worker.
    const docs = await Promise.all(Array.from({ length: 4 }, () => runLogged('pdf-text', copy(bytes))));
    const whole = await runTool('pdf-text', copy(bytes), { ocr: () => ocr });
    for (const d of docs) assert.deepEqual(d.result, whole);
    assert.deepEqual(
      docs.slice(0, 3).map((d) => d.parts),
      [1, 1, 1],
      'the first three found jobs waiting behind them',
    );
  });

  it('fails a split job at its time limit with 504, replaces every worker of it, and splits again afterwards', async () => {
    await untilAllIdle();
    const { bytes } = textPdf({ pages: 2000 });
    const requestId = 'split-timeout';
    await assert.rejects(pool.run('pdf-text', bytes, { requestId, timeoutMs: 50 }), isAppError('processing_timeout', 504));
    assert.equal(logged.lines.find((l) => l.requestId === requestId && l.msg === 'tool job started')?.parts, workers);
    assert.ok(logged.lines.some((l) => l.requestId === requestId && l.msg === 'tool job timed out'));
    await untilAllIdle();
    assert.equal(pool.stats().workers, workers);
    const again = await mixedPdf(1);
    assert.deepEqual((await runLogged('pdf-text', copy(again))).result, await runTool('pdf-text', copy(again), { ocr: () => ocr }));
  });
});

describe('tool pool splitting a job whose worker crashes', () => {
  it('answers 500 once, replaces the workers of every part and splits the next job', async () => {
    const { log, lines } = memoryLogger();
    const pool = createToolPool({ workers: 2, jobTimeoutMs: 60_000, jobMemoryMb: 256, log, inspectWorkers: 0, splitMinPages: 1, workerUrl: new URL('../fixtures/crashing-tool-worker.mjs', import.meta.url) });
    const parts = (requestId: string) => lines.find((l) => l.requestId === requestId && l.msg === 'tool job started')?.parts;
    try {
      let warm = 0;
      while (parts(`warm-${warm}`) !== 2) {
        assert.ok(warm < 200, 'the workers never became idle together');
        await pool.run('pdf-text', await onePagePdf('warm'), { requestId: `warm-${++warm}` });
      }
      await assert.rejects(pool.run('pdf-json', Buffer.from('CRASH please'), { requestId: 'crash' }), isAppError('internal_error', 500));
      assert.equal(parts('crash'), 2);
      assert.ok(lines.some((l) => l.requestId === 'crash' && l.msg === 'tool worker died during a job'));
      const bytes = await multiPagePdf();
      let result;
      for (let i = 0; i < 200 && parts(`after-${i}`) !== 2; i++) result = await pool.run('pdf-json', new Uint8Array(bytes.bytes), { requestId: `after-${i + 1}` });
      assert.deepEqual(
        result?.pages.map((p) => p.page),
        [1, 2, 3],
      );
      assert.equal(pool.stats().workers, 2);
    } finally {
      await pool.close();
    }
  });
});
