// Worker threads start without the parent's module hooks, so TypeScript needs tsx
// registered here before the worker body loads. Plain .mjs so Node can run it as is,
// whether the parent runs under `tsx`, `node --import tsx` or the test runner.
import { register } from 'tsx/esm/api';

register();
await import('./tool-worker.ts');
