/**
 * The worker pool with real worker threads and real documents: results, queueing, the
 * per-job time limit, replacement of a dead worker, and an event loop that keeps turning
 * while a large PDF converts. No timing thresholds: only what happened.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../src/http/app-error.ts';
import { createLogger, type Logger } from '../src/log.ts';
import { createToolPool, type ToolPool } from '../src/tools/tool-pool.ts';
import { onePagePdf } from './fixtures/pdf-fixtures.ts';
import { textPdf } from './fixtures/raw-pdf.ts';

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

describe('tool pool with a worker that crashes', () => {
  it('answers 500 for the job that was running, replaces the worker and runs the next job', async () => {
    const { log, lines } = memoryLogger();
    const pool = createToolPool({ workers: 1, jobTimeoutMs: 60_000, jobMemoryMb: 256, log, workerUrl: new URL('./fixtures/crashing-tool-worker.mjs', import.meta.url) });
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
});
