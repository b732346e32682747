// Worker threads start without the parent's module hooks, so TypeScript needs tsx
// registered here before the worker body loads. Plain .mjs so Node can run it as is,
// whether the parent runs under `tsx`, `node --import tsx` or the test runner.
//
// PDFium's JavaScript glue is loaded first, before tsx: tsx would run its 300 KB through
// its transformer on every worker start; Node loads it natively and the later import from
// TypeScript hits the module cache.
import '@embedpdf/pdfium';
import { register } from 'tsx/esm/api';

register();
await import('./tool-worker.ts');
