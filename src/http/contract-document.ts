/**
 * openapi.yaml as a parsed document, without paying for the YAML parser at every start.
 *
 * Parsing the 230 KB contract with `yaml` costs 0.4-0.9 s of CPU, at every start-up and restart
 * (and for every in-process app the tests build). codegen writes the same document as JSON
 * (src/generated/openapi.json) together with the SHA-256 of the YAML it came from. When that hash
 * matches the file being loaded, the JSON is used (JSON.parse: a few ms); otherwise (a contract
 * edited and not yet regenerated, which `codegen --check` refuses in the tests) the YAML is
 * parsed. Either way the caller gets the same document.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** Where codegen writes the snapshot, relative to the directory of openapi.yaml. */
export const CONTRACT_SNAPSHOT = 'src/generated/openapi.json';

export interface ContractSnapshot {
  /** SHA-256 (hex) of the openapi.yaml bytes the document was parsed from. */
  source_sha256: string;
  document: Record<string, unknown>;
}

export const contractHash = (yamlBytes: Buffer | string): string => createHash('sha256').update(yamlBytes).digest('hex');

/** The snapshot codegen commits: the document parsed from these YAML bytes, as JSON text. */
export function contractSnapshot(yamlBytes: Buffer): string {
  const snapshot: ContractSnapshot = { source_sha256: contractHash(yamlBytes), document: parseYaml(yamlBytes.toString('utf8')) };
  return JSON.stringify(snapshot, null, 1) + '\n';
}

/** Per process: the document's JSON text by file and content hash (a changed file is read anew). */
const cache = new Map<string, string>();

/**
 * The parsed contract. Each call returns a fresh object: openapi-backend dereferences the
 * document it is given in place, so callers must not share one.
 */
export function readContractDocument(file: string): any { // eslint-disable-line @typescript-eslint/no-explicit-any
  const bytes = readFileSync(file);
  const hash = contractHash(bytes);
  const key = `${file}\0${hash}`;
  let text = cache.get(key);
  if (text === undefined) {
    text = snapshotText(join(dirname(file), CONTRACT_SNAPSHOT), hash) ?? JSON.stringify(parseYaml(bytes.toString('utf8')));
    cache.set(key, text);
  }
  return JSON.parse(text);
}

/** The snapshot's document as JSON text when it was made from YAML with this hash; null otherwise. */
function snapshotText(snapshotFile: string, hash: string): string | null {
  let raw: string;
  try {
    raw = readFileSync(snapshotFile, 'utf8');
  } catch {
    return null;
  }
  const snapshot = JSON.parse(raw) as ContractSnapshot;
  return snapshot.source_sha256 === hash ? JSON.stringify(snapshot.document) : null;
}
