/**
 * The console's keccak-256 (src/console/public/keccak.js, run as the browser runs it) equals
 * viem's on the texts a SellerAction hashes: empty, short, at and across the 136-byte block
 * edge, multi-byte UTF-8 and a payload of several blocks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keccak256, stringToBytes } from 'viem';

test('keccak.js agrees with viem at every block edge and on UTF-8', async () => {
  const { keccakText } = (await import(new URL('../../src/console/public/keccak.js', import.meta.url).href)) as { keccakText: (s: string) => string };
  const texts = ['', 'a', 'acme-ocr', '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9', 'x'.repeat(135), 'x'.repeat(136), 'x'.repeat(137), 'x'.repeat(272), 'prix: 2 € – 日本', JSON.stringify({ path_suffix: 'p', upstream_url: 'https://a.example/' + 'q'.repeat(600), atomic_price: 20000, unit: 'request', desc: 'd', mode: 'proxy' })];
  for (const t of texts) assert.equal(keccakText(t), keccak256(stringToBytes(t)), `keccak of ${JSON.stringify(t.slice(0, 20))} (${t.length} chars)`);
  // The known vector: keccak-256 of the empty string.
  assert.equal(keccakText(''), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
});
