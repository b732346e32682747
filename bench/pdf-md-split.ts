/**
 * Checks that pdf-md split over pool workers answers byte for byte what the unsplit run
 * answers, on every PDF of the tuned suite (corpus and test/fixtures/quality/) and the holdout.
 * Three ways per document and option: unsplit (runTool); the pages read one page per freshly
 * opened document, each page's visit packed and copied as a worker's message is, then
 * composed once (the strictest form of "a page's reading depends on that page alone"); and
 * through a tool pool of 2 workers that splits every document (splitMinPages 1). Prints one
 * line per document with the hash of the unsplit answer and whether the others match; exits 1
 * on any difference.
 *
 *   npx tsx bench/pdf-md-split.ts
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../src/log.ts';
import { packPages, unpackPages } from '../src/tools/pdf/md-page-codec.ts';
import { openPdf } from '../src/tools/pdf/open-pdf.ts';
import { composeMd, readMdPages, type MdPageVisit } from '../src/tools/pdf-md.tool.ts';
import { runTool } from '../src/tools/run-tool.ts';
import { createToolPool } from '../src/tools/tool-pool.ts';
import type { PageAnchorForm } from '../src/tools/tool-types.ts';

const dirs = ['corpus', 'quality', 'holdout'].map((d) => fileURLToPath(new URL(`../test/fixtures/${d}/`, import.meta.url)));
const files = dirs.flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.pdf')).map((f) => d + f));
const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 12);
const deps = { ocr: () => { throw new Error('no OCR here'); } } as never;

async function pagewise(bytes: Uint8Array, pageAnchors: PageAnchorForm): Promise<string> {
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const visits: MdPageVisit[] = [];
    // Last page first: no page is read after the one before it.
    for (let n = doc.numPages; n >= 1; n--) {
      const one = await openPdf(new Uint8Array(bytes));
      try {
        // Packed and copied as a worker's message is (pdf/md-page-codec.ts).
        visits.push(...(unpackPages(structuredClone(packPages(await readMdPages(one, undefined, { first: n, last: n })))) as MdPageVisit[]));
      } finally {
        one.destroy();
      }
    }
    visits.sort((a, b) => a.pageNumber - b.pageNumber);
    return composeMd(doc, visits, { pageAnchors: pageAnchors !== 'none' }).markdown;
  } finally {
    doc.destroy();
  }
}

// The pool's "tool job started" lines say how many parts each job ran in.
const parts = new Map<string, number>();
const log = createLogger('info', {}, (line) => {
  const l = JSON.parse(line) as { msg?: string; requestId?: string; parts?: number };
  if (l.msg === 'tool job started' && l.requestId) parts.set(l.requestId, l.parts ?? 1);
});
const pool = createToolPool({ workers: 2, jobTimeoutMs: 600_000, jobMemoryMb: 2048, log, inspectWorkers: 0, splitMinPages: 1 });
let job = 0;
/** Runs the job through the pool until it is split over both workers (they start asynchronously). */
async function pooledSplit(bytes: Uint8Array, pageAnchors: PageAnchorForm) {
  for (;;) {
    const requestId = `j${++job}`;
    const result = await pool.run('pdf-md', new Uint8Array(bytes), { requestId, options: { pageAnchors } });
    if (parts.get(requestId) === 2) return result;
  }
}
let bad = 0;
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  for (const pageAnchors of ['comment', 'none'] as const) {
    const whole = await runTool('pdf-md', new Uint8Array(bytes), { ...(deps as object), options: { pageAnchors } } as never);
    const byPage = await pagewise(bytes, pageAnchors);
    const pooled = await pooledSplit(bytes, pageAnchors);
    const same = (s: string) => (s === whole.markdown ? 'same' : 'DIFFERENT');
    if (byPage !== whole.markdown || pooled.markdown !== whole.markdown || JSON.stringify({ ...pooled, markdown: '' }) !== JSON.stringify({ ...whole, markdown: '' })) bad++;
    console.log(`${file.split('/').slice(-2).join('/').padEnd(48)} ${pageAnchors.padEnd(8)} ${String(whole.pages).padStart(4)} pages  ${hash(whole.markdown)}  page by page: ${same(byPage)}  pool split: ${same(pooled.markdown)}`);
  }
}
await pool.close();
console.log(bad ? `${bad} DIFFERENT` : 'all identical');
process.exit(bad ? 1 : 0);
