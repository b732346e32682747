/** src/lib/lru.ts: bounded, keeps what was used recently, forgets what was not. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLru } from '../../src/lib/lru.ts';

test('never more than capacity entries; a key read recently survives a flood of new ones', () => {
  const lru = createLru<string, number>(10);
  lru.set('hot', 0);
  for (let i = 0; i < 1000; i++) {
    lru.set(`k${i}`, i);
    assert.ok(lru.size <= 10, `size ${lru.size} after ${i + 1} inserts`);
    assert.equal(lru.get('hot'), 0, `the key read every time is kept (insert ${i})`);
  }
  assert.equal(lru.get('k0'), undefined, 'an old key never read again is forgotten');
  assert.equal(lru.get('k999'), 999);
});

test('set replaces a value in either generation, and an older value never comes back', () => {
  const lru = createLru<string, string>(4);
  lru.set('a', '1');
  lru.set('b', '1');
  lru.set('c', '1'); // a, b moved to the older generation
  lru.set('a', '2');
  assert.equal(lru.get('a'), '2');
  lru.set('c', '3');
  assert.equal(lru.get('c'), '3');
  for (let i = 0; i < 10; i++) lru.set(`x${i}`, 'x');
  assert.equal(lru.get('a'), undefined);
  assert.ok(lru.size <= 4);
});
