/**
 * openapi.yaml -> src/generated/. The contract is the source of truth; the generated files
 * are committed so that a reader (and the type check) sees them without running anything.
 *
 *   npx tsx codegen/generate.ts           write src/generated/*
 *   npx tsx codegen/generate.ts --check   exit 1 when the committed files differ from a fresh generation
 *
 * Output is a pure function of openapi.yaml and the pinned openapi-typescript version: the
 * TypeScript printer is deterministic, and normalize() fixes indentation, line endings and
 * the trailing newline so that no editor setting or platform changes the bytes.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse } from 'yaml';
import { CONTRACT_SNAPSHOT, contractSnapshot } from '../src/http/contract-document.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const specPath = path.join(root, 'openapi.yaml');

const HEADER = [
  '// GENERATED from openapi.yaml by codegen/generate.ts — do not edit.',
  '// Change openapi.yaml, then run `npm run codegen` and commit the result.',
  '',
].join('\n');

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  operationId: string;
  method: string;
  path: string;
}

/** The TypeScript printer indents with 4 spaces; the project uses 2. Keeps JSDoc's extra space. */
function normalize(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n').map((line) => {
    const indent = /^ */.exec(line)![0].length;
    const rest = line.slice(indent).replace(/\s+$/, '');
    if (rest === '') return '';
    return ' '.repeat(Math.floor(indent / 4) * 2 + (indent % 4)) + rest;
  });
  return lines.join('\n').replace(/\n+$/, '') + '\n';
}

/** Operations in document order (paths as written, methods in HTTP_METHODS order). */
export function listOperations(document: { paths?: Record<string, Record<string, unknown>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [p, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as { operationId?: string } | undefined;
      if (!op) continue;
      if (!op.operationId) throw new Error(`openapi.yaml: ${method.toUpperCase()} ${p} has no operationId`);
      operations.push({ operationId: op.operationId, method, path: p });
    }
  }
  return operations;
}

async function generateTypes(): Promise<string> {
  const ast = await openapiTS(new URL('openapi.yaml', `file://${root}`), {
    // The document's own lint runs in test/http/contract.test.ts; keep generation quiet.
    silent: true,
    rootTypes: true,
  });
  return HEADER + '\n' + astToString(ast);
}

function generateOperationIds(operations: Operation[]): string {
  const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return [
    HEADER,
    '/** Every operationId of openapi.yaml, in document order. The server checks each has a handler. */',
    'export const operationIds = [',
    ...operations.map((o) => `  ${q(o.operationId)},`),
    '] as const;',
    '',
    'export type OperationId = (typeof operationIds)[number];',
    '',
    '/** Method (lower case) and path template of each operation. */',
    'export const operations = {',
    ...operations.map((o) => `  ${o.operationId}: { method: ${q(o.method)}, path: ${q(o.path)} },`),
    '} as const satisfies Record<OperationId, { method: string; path: string }>;',
  ].join('\n');
}

/** Generated files by path relative to the repository root. */
export async function generate(): Promise<Map<string, string>> {
  const yamlBytes = await readFile(specPath);
  const document = parse(yamlBytes.toString('utf8'));
  const operations = listOperations(document);
  const seen = new Set<string>();
  for (const o of operations) {
    if (seen.has(o.operationId)) throw new Error(`openapi.yaml: operationId ${o.operationId} is used twice`);
    seen.add(o.operationId);
  }
  return new Map([
    ['src/generated/openapi.ts', normalize(await generateTypes())],
    ['src/generated/operation-ids.ts', normalize(generateOperationIds(operations))],
    // The parsed document for the server's start-up (src/http/contract-document.ts).
    [CONTRACT_SNAPSHOT, contractSnapshot(yamlBytes)],
  ]);
}

async function main(argv: string[]): Promise<number> {
  const check = argv.includes('--check');
  const files = await generate();
  if (!check) {
    for (const [rel, content] of files) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), content);
      console.log(`wrote ${rel}`);
    }
    return 0;
  }
  const stale: string[] = [];
  for (const [rel, content] of files) {
    const committed = await readFile(path.join(root, rel), 'utf8').catch(() => null);
    if (committed !== content) stale.push(committed === null ? `${rel} (missing)` : rel);
  }
  if (stale.length) {
    console.error(
      `codegen --check: generated code is out of date with openapi.yaml:\n` +
        stale.map((s) => `  ${s}\n`).join('') +
        `Run \`npm run codegen\` and commit the result.`,
    );
    return 1;
  }
  console.log(`codegen --check: ${[...files.keys()].join(', ')} up to date`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`codegen: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
