/**
 * src/log.ts: the fast line format says what the object-spread format said (same keys, same
 * order, a field repeating a base field replaces it), and the batched stderr writer of the
 * service loses and reorders nothing: lines of one turn go out together at its end, a
 * warning or an error at once with everything before it, and what is held when the process
 * exits (process.exit, an uncaught exception) is written before it ends. Real child processes
 * writing to a real pipe.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { bufferedSink, createLogger } from '../../src/log.ts';

const ROOT = resolve(import.meta.dirname, '../..');

test('a line carries time, level, msg, the base fields and the call fields, in that order; repeated keys replaced in place', () => {
  const lines: string[] = [];
  const log = createLogger('debug', { service: 'svc', n: 1n }, (l) => lines.push(l)).child({ request_id: 'r1' });
  log.info('request', { status: 402, big: 12345678901234567890n, nested: { amount: 5n }, skipped: undefined, err: new Error('boom') });
  log.warn('again', { request_id: 'r2', service: 'other', msg: 'field msg' });
  log.debug('quote "x"\n', {});
  assert.equal(lines.length, 3);
  for (const l of lines) assert.ok(l.endsWith('\n') && !l.slice(0, -1).includes('\n'), 'one line each');
  const [a, b, c] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(Object.keys(a), ['time', 'level', 'msg', 'service', 'n', 'request_id', 'status', 'big', 'nested', 'err']);
  assert.equal(a.level, 'info');
  assert.equal(a.n, '1');
  assert.equal(a.big, '12345678901234567890');
  assert.deepEqual(a.nested, { amount: '5' });
  assert.equal((a.err as { message: string }).message, 'boom');
  assert.match(a.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // The fields win over the base and over msg, in the key's first place, as { ...base, ...fields } did.
  assert.deepEqual(Object.keys(b), ['time', 'level', 'msg', 'service', 'n', 'request_id']);
  assert.deepEqual([b.msg, b.service, b.request_id], ['field msg', 'other', 'r2']);
  assert.equal(c.msg, 'quote "x"\n');
});

test('bufferedSink: one write per turn, in order; flush writes at once', async () => {
  const writes: string[] = [];
  const sink = bufferedSink((chunk) => writes.push(chunk));
  const log = createLogger('info', {}, sink);
  log.info('a');
  log.info('b');
  assert.equal(writes.length, 0, 'held until the turn ends');
  await new Promise((r) => setImmediate(r));
  assert.equal(writes.length, 1);
  assert.deepEqual(writes[0].trim().split('\n').map((l) => JSON.parse(l).msg), ['a', 'b']);
  log.info('c');
  log.warn('d');
  assert.equal(writes.length, 2, 'a warning goes out at once, with the line before it');
  assert.deepEqual(writes[1].trim().split('\n').map((l) => JSON.parse(l).msg), ['c', 'd']);
  await new Promise((r) => setImmediate(r));
  assert.equal(writes.length, 2, 'nothing left to write');
});

/** A child process logging through the service's writer, then ending as `how` says. */
const runChild = (how: 'exit' | 'uncaught' | 'busy') => {
  const script = `
    import { bufferedSink, createLogger, stderrSink } from ${JSON.stringify(resolve(ROOT, 'src/log.ts'))};
    const log = createLogger('info', { service: 't' }, bufferedSink(stderrSink));
    for (let i = 0; i < 3000; i++) log.info('line', { i });
    process.on('uncaughtException', (err) => { log.error('uncaught exception', { err }); setImmediate(() => { log.info('after'); process.exit(1); }); });
    if (${JSON.stringify(how)} === 'exit') { log.info('last'); process.exit(3); }
    // Thrown from a callback, as an exception escapes in the service: one thrown while the entry
    // module itself is evaluated lets Node end the process on its own, before the handler's
    // setImmediate (seen under load: 'after' missing).
    if (${JSON.stringify(how)} === 'uncaught') { log.info('last'); setImmediate(() => { throw new Error('crash'); }); }
    if (${JSON.stringify(how)} === 'busy') { log.info('last'); }
  `;
  // The reader is slow: it reads nothing for the first 400 ms, so the 64 KB pipe is full when
  // the child writes its 250 KB and exits (as a log collector under load). With
  // process.stderr.write the rest was kept in memory and dropped by process.exit.
  return new Promise<{ status: number | null; stderr: string }>((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stderr.pause();
    setTimeout(() => child.stderr.on('data', (c: Buffer) => chunks.push(c)).resume(), 400);
    child.on('close', (status) => done({ status, stderr: Buffer.concat(chunks).toString('utf8') }));
  });
};

for (const how of ['exit', 'uncaught', 'busy'] as const) {
  test(`the service's writer: every line written, in order, when the process ends by ${how}, to a slow reader`, async () => {
    const r = await runChild(how);
    const lines = r.stderr.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; i?: number });
    const numbered = lines.filter((l) => l.msg === 'line').map((l) => l.i);
    assert.deepEqual(numbered, Array.from({ length: 3000 }, (_, i) => i), 'all 3000 lines, in order');
    const tail = lines.slice(3000).map((l) => l.msg);
    if (how === 'exit') assert.deepEqual([r.status, tail], [3, ['last']]);
    if (how === 'busy') assert.deepEqual([r.status, tail], [0, ['last']]);
    if (how === 'uncaught') assert.deepEqual([r.status, tail], [1, ['last', 'uncaught exception', 'after']]);
  });
}

test('the service\'s writer when the reader of stderr goes away: lines are dropped, the process neither throws nor stops', async () => {
  // A log collector that dies: the pipe's read end is closed before the child writes a line.
  // Every write then fails with EPIPE; logging must not turn that into an exception.
  const script = `
    import { bufferedSink, createLogger, stderrSink } from ${JSON.stringify(resolve(ROOT, 'src/log.ts'))};
    const log = createLogger('info', { service: 't' }, bufferedSink(stderrSink));
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 3000; i++) log.info('line', { i });
    log.error('an error flushes at once');
    await new Promise((r) => setTimeout(r, 50));
    log.info('last');
    process.stdout.write('alive');
  `;
  const r = await new Promise<{ status: number | null; stdout: string }>((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr.destroy();
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.on('close', (status) => done({ status, stdout }));
  });
  assert.deepEqual(r, { status: 0, stdout: 'alive' });
});
