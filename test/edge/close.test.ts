/**
 * App.close() always ends: the upstream client does not wait for an upstream that never
 * answers, and a step that hangs is left behind after its bound (src/app.ts closeStep), so the
 * steps after it (the database) still run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createUpstreamClient } from '../../src/proxy/upstream-client.ts';
import { closeStep } from '../../src/app.ts';
import { createLogger } from '../../src/log.ts';

test('closing the upstream client ends a request to an upstream that never answers', async () => {
  const held: IncomingMessage[] = [];
  const upstream = createServer((req) => void held.push(req)); // reads the request, never answers
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/slow`;
  const client = createUpstreamClient({ allowLocal: true, caFile: null });
  try {
    const pending = client.request(url, { method: 'POST', body: '{}', timeoutMs: 600_000, maxResponseBytes: 1024 });
    pending.catch(() => undefined);
    while (held.length === 0) await new Promise((r) => setTimeout(r, 10));
    // With Agent.close() this waited for the upstream's answer: forever here.
    await client.close();
    await assert.rejects(pending);
  } finally {
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  }
});

test('a close step that hangs is left behind after its bound and logged; one that fails is logged; the next steps run', async () => {
  const lines: string[] = [];
  const log = createLogger('info', {}, (l) => void lines.push(l));
  assert.equal(await closeStep(log, 'never', () => new Promise(() => undefined), 50), 'timed out');
  assert.equal(await closeStep(log, 'throws', () => { throw new Error('gone'); }, 50), 'failed');
  assert.equal(await closeStep(log, 'rejects', () => Promise.reject(new Error('lost')), 50), 'failed');
  assert.equal(await closeStep(log, 'fine', () => undefined, 50), 'closed');
  const events = lines.join('').trim().split('\n').map((l) => JSON.parse(l) as { msg: string; step: string; error?: string });
  assert.deepEqual(events.map((e) => [e.msg, e.step, e.error]), [
    ['close step did not finish in time; going on without it', 'never', undefined],
    ['close step failed', 'throws', 'gone'],
    ['close step failed', 'rejects', 'lost'],
  ]);
});
