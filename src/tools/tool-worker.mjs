// Worker threads start without the parent's module hooks, so TypeScript needs tsx
// registered here before the worker body loads. Plain .mjs so Node can run it as is,
// whether the parent runs under `tsx`, `node --import tsx` or the test runner.
//
// pdf.js is loaded first, before tsx: tsx would run its 3 MB of JavaScript through its
// transformer (seconds per worker start); Node loads it natively in a fraction of that,
// and the later imports from TypeScript hit the module cache. Exposing the pdf.js worker
// module as globalThis.pdfjsWorker makes pdf.js run its parser in this thread without a
// second dynamic import.
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import 'pdfjs-dist/legacy/build/pdf.mjs';
import { register } from 'tsx/esm/api';

globalThis.pdfjsWorker = pdfjsWorker;
register();
await import('./tool-worker.ts');
