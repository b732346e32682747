/**
 * A closed-loop HTTP load generator in a worker thread (so it does not share the event loop
 * with the server under test): `connections` keep-alive clients each send the next request
 * as soon as the previous answer is read, for `seconds`.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { request, Agent } from 'node:http';

export interface LoadSpec {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array;
  connections: number;
  seconds: number;
  expectStatus: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  unexpected: number;
}

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: spec, execArgv: ['--import', 'tsx'] });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function generate(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.url);
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
  const latencies: number[] = [];
  let unexpected = 0;
  const deadline = performance.now() + spec.seconds * 1000;
  const one = () =>
    new Promise<void>((done, fail) => {
      const started = performance.now();
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: spec.method, headers: { ...spec.headers, 'content-length': String(spec.body.length) }, agent }, (res) => {
        if (res.statusCode !== spec.expectStatus) unexpected++;
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - started);
          done();
        });
      });
      req.on('error', fail);
      req.end(spec.body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] * 100) / 100;
  return { requests: latencies.length, rps: Math.round(latencies.length / elapsed), p50ms: pct(0.5), p99ms: pct(0.99), unexpected };
}

if (!isMainThread) parentPort!.postMessage(await generate(workerData as LoadSpec));
