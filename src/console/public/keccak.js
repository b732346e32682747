// keccak-256 (the original Keccak padding, as Ethereum uses it) over bytes, in BigInt lanes.
// The payloadHash of a SellerAction is keccak-256 of the payload's UTF-8 text; WebCrypto has
// no Keccak, and the console loads no library, so it is here. Payloads are at most a few KB:
// BigInt arithmetic is fast enough and far easier to check than 32-bit lane pairs.
// test/console/keccak.test.ts checks it against viem's keccak256.

const MASK = (1n << 64n) - 1n;
const RC = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n, 0x000000000000808bn, 0x0000000080000001n,
  0x8000000080008081n, 0x8000000000008009n, 0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n, 0x8000000000008002n, 0x8000000000000080n,
  0x000000000000800an, 0x800000008000000an, 0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];
const ROTC = [1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44].map(BigInt);
const PILN = [10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1];

const rotl = (x, n) => ((x << n) | (x >> (64n - n))) & MASK;

function keccakF(st) {
  const bc = new Array(5);
  for (let round = 0; round < 24; round++) {
    for (let i = 0; i < 5; i++) bc[i] = st[i] ^ st[i + 5] ^ st[i + 10] ^ st[i + 15] ^ st[i + 20];
    for (let i = 0; i < 5; i++) {
      const t = bc[(i + 4) % 5] ^ rotl(bc[(i + 1) % 5], 1n);
      for (let j = 0; j < 25; j += 5) st[j + i] ^= t;
    }
    let t = st[1];
    for (let i = 0; i < 24; i++) {
      const j = PILN[i];
      const next = st[j];
      st[j] = rotl(t, ROTC[i]);
      t = next;
    }
    for (let j = 0; j < 25; j += 5) {
      for (let i = 0; i < 5; i++) bc[i] = st[j + i];
      for (let i = 0; i < 5; i++) st[j + i] ^= (bc[(i + 1) % 5] ^ MASK) & bc[(i + 2) % 5];
    }
    st[0] ^= RC[round];
  }
}

const RATE = 136;

/** keccak-256 of the bytes, as 0x-prefixed lower-case hex. */
export function keccak256(bytes) {
  const padded = new Uint8Array(Math.floor(bytes.length / RATE) * RATE + RATE);
  padded.set(bytes);
  padded[bytes.length] ^= 0x01;
  padded[padded.length - 1] ^= 0x80;
  const st = new Array(25).fill(0n);
  for (let off = 0; off < padded.length; off += RATE) {
    for (let i = 0; i < RATE / 8; i++) {
      let lane = 0n;
      for (let b = 7; b >= 0; b--) lane = (lane << 8n) | BigInt(padded[off + i * 8 + b]);
      st[i] ^= lane;
    }
    keccakF(st);
  }
  let hex = '0x';
  for (let i = 0; i < 4; i++) {
    for (let b = 0; b < 8; b++) hex += Number((st[i] >> BigInt(8 * b)) & 0xffn).toString(16).padStart(2, '0');
  }
  return hex;
}

/** keccak-256 of the UTF-8 text. */
export const keccakText = (text) => keccak256(new TextEncoder().encode(text));
