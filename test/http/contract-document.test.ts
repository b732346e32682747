/**
 * The contract's start-up snapshot (src/http/contract-document.ts): used only when it was made
 * from the very YAML being loaded; a stale or missing one falls back to parsing the YAML.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_SNAPSHOT, contractHash, contractSnapshot, readContractDocument } from '../../src/http/contract-document.ts';

async function withContract(yaml: string, snapshot: string | null, fn: (file: string) => Promise<void>) {
  const dir = await mkdtemp(join(tmpdir(), 'paycall-contract-'));
  try {
    await writeFile(join(dir, 'openapi.yaml'), yaml);
    if (snapshot !== null) {
      await mkdir(join(dir, 'src/generated'), { recursive: true });
      await writeFile(join(dir, CONTRACT_SNAPSHOT), snapshot);
    }
    await fn(join(dir, 'openapi.yaml'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const YAML = 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths: {}\n';

test('the snapshot is read when its hash is the YAML’s, and equals the parsed YAML', async () => {
  await withContract(YAML, contractSnapshot(Buffer.from(YAML)), async (file) => {
    assert.deepEqual(readContractDocument(file), { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} });
  });
  // A snapshot with the right hash is trusted as it is (that is the saving): proven by one whose document differs.
  const planted = JSON.stringify({ source_sha256: contractHash(YAML + ' '), document: { from: 'snapshot' } });
  await withContract(YAML + ' ', planted, async (file) => assert.deepEqual(readContractDocument(file), { from: 'snapshot' }));
});

test('a stale or missing snapshot falls back to the YAML; each call returns a fresh object', async () => {
  const stale = JSON.stringify({ source_sha256: contractHash('an older contract'), document: { from: 'snapshot' } });
  await withContract(YAML, stale, async (file) => assert.equal(readContractDocument(file).openapi, '3.1.0'));
  await withContract(YAML, null, async (file) => {
    const a = readContractDocument(file);
    a.info.title = 'changed by a caller';
    assert.equal(readContractDocument(file).info.title, 't');
  });
});

test('the committed snapshot is the one codegen makes from openapi.yaml', async () => {
  const root = new URL('../../', import.meta.url);
  const yaml = await readFile(new URL('openapi.yaml', root));
  assert.equal(await readFile(new URL(CONTRACT_SNAPSHOT, root), 'utf8'), contractSnapshot(yaml));
});
