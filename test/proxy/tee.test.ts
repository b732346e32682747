/** teeAnswer: the buyer gets every byte; a copy is kept only under the bound. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { teeAnswer } from '../../src/payments/tee-answer.ts';

const chunks = (n: number, size: number) => Array.from({ length: n }, (_, i) => Buffer.alloc(size, i));

test('an answer under the bound is streamed and stored', async () => {
  const { stream, stored } = teeAnswer(Readable.from(chunks(4, 1000)), 4000);
  const sent = Buffer.concat(await stream.toArray());
  assert.equal(sent.length, 4000);
  assert.deepEqual(await stored, sent);
});

test('an answer over the bound is streamed whole and not stored', async () => {
  const { stream, stored } = teeAnswer(Readable.from(chunks(5, 1000)), 4000);
  assert.equal(Buffer.concat(await stream.toArray()).length, 5000);
  assert.equal(await stored, null);
});

test('an upstream that fails midway stores nothing and ends the buyer’s stream with the error', async () => {
  const failing = new Readable({
    read() {
      this.push(Buffer.alloc(10));
      this.destroy(new Error('upstream reset'));
    },
  });
  const { stream, stored } = teeAnswer(failing, 4000);
  await assert.rejects(stream.toArray(), /upstream reset/);
  assert.equal(await stored, null);
});

test('a buyer who drops the connection midway does not lose the answer: it is read to the end and kept', async () => {
  const source = new Readable({ read() {} });
  const { stream, stored } = teeAnswer(source, 4000);
  source.push(Buffer.alloc(1000, 1));
  await new Promise((r) => setImmediate(r));
  stream.destroy();
  source.push(Buffer.alloc(1000, 2));
  source.push(null);
  const copy = await stored;
  assert.equal(copy?.length, 2000);
});
