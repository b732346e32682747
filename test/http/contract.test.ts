/**
 * The contract itself: openapi.yaml is valid OpenAPI 3.1 for every tool that reads it
 * (openapi-backend in strict mode, Ajv 2020 for every schema; Redocly's CLI lints it in
 * `npm test` itself, with redocly.lint.yaml), carries
 * every error code of the specification on the operations it belongs to, and its examples
 * validate. Also pins openapi-backend's routing of the fixed `/v1/_...` paths against the
 * catch-all `/v1/{slug}/{path_suffix}`.
 */
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction, Options as AjvOptions } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { OpenAPIBackend, type Context } from 'openapi-backend';
import { operationIds as generatedOperationIds, operations as generatedOperations } from '../../src/generated/operation-ids.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const specPath = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));
const specText = readFileSync(specPath, 'utf8');
const doc: Json = parse(specText);
const DOC_ID = 'https://paycall.invalid/openapi.json';

const addFormats = ((addFormatsModule as Json).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PAID = ['pdfMd', 'pdfText', 'pdfJson', 'invoiceExtract', 'callSellerEndpoint'];

interface Op {
  id: string;
  method: string;
  path: string;
  op: Json;
  pointer: string;
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function allOperations(): Op[] {
  const out: Op[] = [];
  for (const [p, item] of Object.entries<Json>(doc.paths)) {
    for (const m of METHODS) {
      if (item[m]) out.push({ id: item[m].operationId, method: m, path: p, op: item[m], pointer: `#/paths/${escape(p)}/${m}` });
    }
  }
  return out;
}
const ops = allOperations();
const opById = (id: string) => {
  const o = ops.find((x) => x.id === id);
  assert.ok(o, `operation ${id} exists`);
  return o;
};

/** Follows a local $ref (only `#/...`). */
function deref(node: Json): Json {
  let n = node;
  for (let i = 0; n && typeof n === 'object' && typeof n.$ref === 'string' && i < 20; i++) {
    n = n.$ref
      .slice(2)
      .split('/')
      .map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((acc: Json, key: string) => acc?.[key], doc);
    assert.ok(n !== undefined, `unresolved ref ${node.$ref}`);
  }
  return n;
}

/** The `error` enum of a response body schema (through $ref and allOf); null when it has none. */
function errorCodesOfSchema(schema: Json): string[] | null {
  const s = deref(schema);
  if (!s || typeof s !== 'object') return null;
  const own = s.properties?.error ? deref(s.properties.error) : undefined;
  if (own?.enum) return own.enum;
  for (const part of s.allOf ?? []) {
    const codes = errorCodesOfSchema(part);
    if (codes) return codes;
  }
  return null;
}

function responseOf(o: Op, status: string): Json {
  const r = o.op.responses?.[status];
  return r ? deref(r) : undefined;
}

function errorCodes(opId: string, status: string): string[] {
  const r = responseOf(opById(opId), status);
  if (!r) return [];
  const schema = r.content?.['application/json']?.schema;
  return schema ? (errorCodesOfSchema(schema) ?? []) : [];
}

function newAjv(opts: AjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, ...opts });
  addFormats(ajv);
  // OpenAPI's own format for raw bytes; nothing to check in a JSON value.
  ajv.addFormat('binary', true);
  // OpenAPI annotations that are not JSON Schema keywords. Ajv's discriminator support
  // refuses `mapping`, which SDK generators want; oneOf already enforces the variants.
  ajv.addKeyword({ keyword: 'example' });
  ajv.addKeyword({ keyword: 'discriminator' });
  ajv.addKeyword({ keyword: 'x-error-code' });
  return ajv;
}

let ajv: Ajv2020;
const validators = new Map<string, ValidateFunction<Json>>();
function validatorAt(pointer: string): ValidateFunction<Json> {
  let v = validators.get(pointer);
  if (!v) {
    v = ajv.compile<Json>({ $ref: `${DOC_ID}${pointer}` });
    validators.set(pointer, v);
  }
  return v;
}
function assertValid(pointer: string, value: Json, label: string) {
  const v = validatorAt(pointer);
  assert.ok(v(value), `${label} does not match ${pointer}: ${JSON.stringify(v.errors, null, 2)}`);
}
const schemaPtr = (name: string) => `#/components/schemas/${name}`;

before(() => {
  ajv = newAjv();
  // The whole document is one resource so that its `#/components/...` refs resolve as written;
  // its top-level OpenAPI fields are not schema keywords (only the fragments are compiled).
  for (const keyword of Object.keys(doc)) ajv.addKeyword({ keyword });
  ajv.addSchema({ ...doc, $id: DOC_ID }, undefined, undefined, false);
});

describe('openapi.yaml is valid OpenAPI 3.1', () => {
  test('version fields', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
    assert.equal(doc.info.title, 'paycall');
    assert.equal(doc.servers[0].url, 'http://127.0.0.1:4020');
    assert.ok(doc.servers.length >= 2, 'a production server entry');
  });

  test('openapi-backend loads it in strict mode with Ajv 2020 + ajv-formats', async () => {
    const api = new OpenAPIBackend({
      definition: structuredClone(doc),
      strict: true,
      customizeAjv: (_ajv, opts) => newAjv({ ...opts, strict: false }) as Json,
    });
    await api.init();
    assert.equal(api.getOperations().length, ops.length);
  });

  test('every schema compiles with Ajv 2020 (strict) + ajv-formats', () => {
    for (const name of Object.keys(doc.components.schemas)) validatorAt(schemaPtr(name));
    // Inline schemas of parameters, bodies, responses and headers, wherever they are.
    const walk = (node: Json, pointer: string) => {
      if (!node || typeof node !== 'object') return;
      if (node.schema && typeof node.schema === 'object') validatorAt(`${pointer}/schema`);
      for (const [k, v] of Object.entries<Json>(node)) {
        if (k === 'schema' || k === 'schemas' || k === 'examples' || k === 'example') continue;
        walk(v, `${pointer}/${escape(k)}`);
      }
    };
    walk(doc.paths, '#/paths');
    walk(doc.components, '#/components');
    assert.ok(validators.size > Object.keys(doc.components.schemas).length);
  });

  test('every operation has an operationId, summary, description, tags, 429 and 500', () => {
    for (const o of ops) {
      const where = `${o.method.toUpperCase()} ${o.path}`;
      assert.match(o.id ?? '', /^[a-z][A-Za-z0-9]+$/, `${where} operationId`);
      assert.ok(o.op.summary?.trim(), `${where} summary`);
      assert.ok(o.op.description?.trim(), `${where} description`);
      assert.ok(o.op.tags?.length, `${where} tags`);
      assert.deepEqual(o.op.responses['429'], { $ref: '#/components/responses/RateLimited' }, `${where} 429`);
      assert.deepEqual(o.op.responses['500'], { $ref: '#/components/responses/InternalError' }, `${where} 500`);
    }
    assert.ok(deref({ $ref: '#/components/responses/RateLimited' }).headers['Retry-After'], 'Retry-After on 429');
  });

  test('the operationIds are exactly the agreed ones, and the generated list matches', () => {
    const expected = [
      'pdfMd', 'pdfText', 'pdfJson', 'invoiceExtract', 'callSellerEndpoint', 'getMeta', 'getWellKnownX402', 'getHealth',
      'issueApiKey', 'listApiKeys', 'revokeApiKey', 'getAccount', 'registerSeller',
      'addSellerEndpoint', 'listSellerEndpoints', 'updateSellerEndpoint', 'deleteSellerEndpoint',
      'resumeSeller', 'getSellerStats', 'getSellerErrors', 'requestPayout', 'solanaFacilitator',
      'getSessionToken', 'listDiscoveryResources', 'searchDiscoveryResources', 'getDocs', 'getDocsAsset', 'getOpenApi', 'mcp',
      'getConsole', 'getConsoleAsset',
    ];
    assert.deepEqual([...ops.map((o) => o.id)].sort(), [...expected].sort());
    assert.deepEqual([...generatedOperationIds], ops.map((o) => o.id));
    for (const o of ops) assert.deepEqual(generatedOperations[o.id as keyof typeof generatedOperations], { method: o.method, path: o.path });
  });

  test('every JSON request body has at least one example, and so does every JSON response', () => {
    for (const o of ops) {
      const body = o.op.requestBody && deref(o.op.requestBody);
      const json = body?.content?.['application/json'];
      if (json) {
        const n = Object.keys(json.examples ?? {}).length + (json.example === undefined ? 0 : 1);
        assert.ok(n > 0, `${o.id} request body has an example`);
      }
      for (const [status, ref] of Object.entries<Json>(o.op.responses)) {
        const media = deref(ref).content?.['application/json'];
        if (!media) continue;
        const n = Object.keys(media.examples ?? {}).length + (media.example === undefined ? 0 : 1);
        assert.ok(n > 0, `${o.id} ${status} has an example`);
      }
    }
  });

  test('every example validates against its schema', () => {
    let checked = 0;
    const checkMedia = (media: Json, pointer: string, label: string) => {
      if (!media?.schema) return;
      if (media.example !== undefined) {
        assertValid(`${pointer}/schema`, media.example, label);
        checked++;
      }
      for (const [name, ex] of Object.entries<Json>(media.examples ?? {})) {
        assertValid(`${pointer}/schema`, deref(ex).value, `${label} example ${name}`);
        checked++;
      }
    };
    const walk = (node: Json, pointer: string) => {
      if (!node || typeof node !== 'object' || Array.isArray(node)) return;
      if ('schema' in node && ('example' in node || 'examples' in node)) checkMedia(node, pointer, pointer);
      for (const [k, v] of Object.entries<Json>(node)) {
        if (k === 'examples' || k === 'example' || k === 'schema') continue;
        walk(v, `${pointer}/${escape(k)}`);
      }
    };
    walk(doc.paths, '#/paths');
    walk(doc.components.parameters, '#/components/parameters');
    walk(doc.components.responses, '#/components/responses');
    walk(doc.components.requestBodies, '#/components/requestBodies');
    for (const [name, schema] of Object.entries<Json>(doc.components.schemas)) {
      if (schema.example !== undefined) {
        assertValid(schemaPtr(name), schema.example, `schema ${name} example`);
        checked++;
      }
    }
    assert.ok(checked > 60, `checked ${checked} examples`);
  });

  test('security: schemes, and paid operations accept X-Payment, X-Session-Token or nothing (402)', () => {
    const schemes = doc.components.securitySchemes;
    assert.deepEqual(schemes.bearerApiKey.type, 'http');
    assert.deepEqual(schemes.bearerApiKey.scheme, 'bearer');
    assert.match(schemes.bearerApiKey.description, /<prefix>_live_<random>/);
    assert.deepEqual([schemes.xPayment.type, schemes.xPayment.in, schemes.xPayment.name], ['apiKey', 'header', 'X-Payment']);
    assert.deepEqual(
      [schemes.xSessionToken.type, schemes.xSessionToken.in, schemes.xSessionToken.name],
      ['apiKey', 'header', 'X-Session-Token'],
    );
    for (const id of PAID) {
      const o = opById(id);
      // A `pay` key may come beside the proof (it names the buyer), never instead of it.
      assert.deepEqual(o.op.security, [{ xPayment: [] }, { xSessionToken: [] }, {}, { xPayment: [], bearerApiKey: ['pay'] }, { xSessionToken: [], bearerApiKey: ['pay'] }], `${id} security`);
      const headers = (o.op.parameters ?? []).map((p: Json) => deref(p)).filter((p: Json) => p.in === 'header');
      assert.deepEqual(headers.map((p: Json) => [p.name, p.required]), [['X-Payment', false], ['X-Session-Token', false], ['PAYMENT-SIGNATURE', false]]);
      const ok = responseOf(o, '200');
      assert.ok(ok.headers['X-PAYMENT-RESPONSE'] && ok.headers['PAYMENT-RESPONSE'] && ok.headers['X-Idempotent-Replay'], `${id} 200 headers`);
      assert.ok(responseOf(o, '402').headers['PAYMENT-REQUIRED'], `${id} 402 carries the v2 quote header`);
    }
    for (const o of ops) assert.ok(Array.isArray(o.op.security), `${o.id} states its security`);
  });

  test('path parameters: wallet pattern, positive integer ids', () => {
    const wallet = deref(doc.components.parameters.WalletPath.schema);
    assert.equal(wallet.pattern, '^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$');
    for (const o of ops) {
      const params = [...(doc.paths[o.path].parameters ?? []), ...(o.op.parameters ?? [])].map(deref);
      for (const p of params.filter((x: Json) => x.in === 'path')) {
        assert.ok(o.path.includes(`{${p.name}}`), `${o.id} declares ${p.name}`);
        const s = deref(p.schema);
        if (p.name === 'wallet') assert.equal(s.pattern, wallet.pattern);
        if (p.name === 'id') assert.deepEqual([s.type, s.minimum], ['integer', 1], `${o.id} id`);
      }
      for (const name of [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]))
        assert.ok(params.some((p: Json) => p.in === 'path' && p.name === name), `${o.id} declares {${name}}`);
    }
  });
});

describe('error codes', () => {
  // The specification's error tables (and DESIGN.md's decided codes): code -> where it must appear.
  const required: Array<[status: string, code: string, operations: string[]]> = [
    // Buyer side
    ['402', 'X-PAYMENT header is required', PAID],
    ['402', 'payment_required', PAID],
    ['402', 'payment_unconfirmed', PAID],
    ['402', 'amount_mismatch', PAID],
    ['402', 'wrong_recipient', PAID],
    ['402', 'wrong_asset', PAID],
    ['402', 'quote_expired', PAID],
    ['402', 'invalid_payment', PAID],
    ['402', 'authorization_invalid', PAID],
    ['404', 'endpoint_not_found', ['callSellerEndpoint']],
    ['409', 'tx_already_consumed', PAID],
    ['410', 'endpoint_suspended', ['callSellerEndpoint']],
    ['413', 'body_too_large', PAID],
    ['502', 'upstream_5xx', ['callSellerEndpoint']],
    ['504', 'upstream_timeout', ['callSellerEndpoint']],
    ['400', 'invalid_input', ['pdfMd', 'pdfText', 'pdfJson', 'invoiceExtract']],
    ['422', 'invalid_document', ['pdfMd', 'pdfText', 'pdfJson', 'invoiceExtract']],
    ['504', 'processing_timeout', ['pdfMd', 'pdfText', 'pdfJson', 'invoiceExtract']],
    // Decided by the document tools (src/tools/tool-pool.ts)
    ['422', 'document_too_complex', ['pdfMd', 'pdfText', 'pdfJson', 'invoiceExtract']],
    ['503', 'tools_busy', ['pdfMd', 'pdfText', 'pdfJson', 'invoiceExtract']],
    ['503', 'service_unavailable', ['pdfMd', 'pdfText', 'pdfJson', 'invoiceExtract']],
    // Seller side
    ['400', 'invalid_json', ['registerSeller', 'addSellerEndpoint', 'updateSellerEndpoint', 'resumeSeller', 'requestPayout', 'issueApiKey']],
    ['400', 'invalid_input', ['registerSeller', 'addSellerEndpoint', 'updateSellerEndpoint', 'resumeSeller', 'requestPayout', 'issueApiKey', 'solanaFacilitator']],
    ['400', 'invalid_slug_format', ['registerSeller']],
    ['400', 'invalid_wallet', ['registerSeller', 'addSellerEndpoint', 'listSellerEndpoints', 'updateSellerEndpoint', 'deleteSellerEndpoint', 'resumeSeller', 'getSellerStats', 'getSellerErrors', 'requestPayout', 'issueApiKey', 'getAccount', 'listApiKeys']],
    ['400', 'invalid_input', ['getSellerStats', 'getSellerErrors', 'listSellerEndpoints']],
    ['400', 'invalid_id', ['updateSellerEndpoint', 'deleteSellerEndpoint', 'revokeApiKey']],
    ['400', 'invalid_timestamp', ['registerSeller', 'addSellerEndpoint', 'listSellerEndpoints', 'updateSellerEndpoint', 'deleteSellerEndpoint', 'resumeSeller', 'getSellerStats', 'getSellerErrors', 'requestPayout', 'issueApiKey', 'revokeApiKey', 'getAccount', 'listApiKeys']],
    ['400', 'seller_not_found', ['addSellerEndpoint', 'updateSellerEndpoint']],
    ['400', 'seller_suspended', ['addSellerEndpoint', 'updateSellerEndpoint', 'deleteSellerEndpoint', 'listSellerEndpoints', 'getSellerStats', 'getSellerErrors', 'requestPayout']],
    ['400', 'upstream_unreachable', ['addSellerEndpoint', 'updateSellerEndpoint']],
    ['401', 'invalid_signature', ['registerSeller', 'addSellerEndpoint', 'listSellerEndpoints', 'updateSellerEndpoint', 'deleteSellerEndpoint', 'resumeSeller', 'getSellerStats', 'getSellerErrors', 'requestPayout', 'issueApiKey', 'revokeApiKey', 'getAccount', 'listApiKeys']],
    ['401', 'missing_signature_headers', ['deleteSellerEndpoint', 'revokeApiKey']],
    ['401', 'missing_sig_or_ts', ['getSellerStats', 'getSellerErrors', 'listSellerEndpoints', 'getAccount', 'listApiKeys']],
    ['401', 'wallet_mismatch', ['deleteSellerEndpoint', 'updateSellerEndpoint', 'revokeApiKey']],
    ['401', 'invalid_api_key', ['listApiKeys', 'revokeApiKey', 'getAccount', 'addSellerEndpoint', 'listSellerEndpoints', 'updateSellerEndpoint', 'deleteSellerEndpoint', 'getSellerStats', 'getSellerErrors', 'requestPayout']],
    ['401', 'missing_api_key', ['listApiKeys']],
    ['401', 'invalid_api_key', PAID],
    ['403', 'insufficient_scope', PAID],
    ['401', 'wallet_mismatch', ['getAccount', 'addSellerEndpoint', 'listSellerEndpoints', 'getSellerStats', 'getSellerErrors', 'listApiKeys']],
    ['403', 'signature_required', ['issueApiKey']],
    ['403', 'insufficient_scope', ['listApiKeys', 'getAccount', 'addSellerEndpoint', 'listSellerEndpoints', 'updateSellerEndpoint', 'deleteSellerEndpoint', 'getSellerStats', 'getSellerErrors', 'requestPayout']],
    ['404', 'endpoint_not_found', ['deleteSellerEndpoint', 'updateSellerEndpoint']],
    ['404', 'seller_not_found', ['getSellerStats', 'getSellerErrors', 'listSellerEndpoints', 'resumeSeller', 'requestPayout']],
    ['404', 'key_not_found', ['revokeApiKey']],
    ['409', 'slug_taken', ['registerSeller']],
    ['409', 'wallet_already_registered', ['registerSeller']],
    ['409', 'path_taken', ['addSellerEndpoint']],
    ['409', 'signature_already_used', ['registerSeller', 'addSellerEndpoint', 'updateSellerEndpoint', 'deleteSellerEndpoint', 'resumeSeller', 'requestPayout', 'issueApiKey', 'revokeApiKey']],
    ['409', 'nothing_to_pay', ['requestPayout']],
    ['413', 'body_too_large', ['registerSeller', 'addSellerEndpoint', 'updateSellerEndpoint', 'issueApiKey', 'resumeSeller', 'requestPayout', 'solanaFacilitator']],
    // Payment rails
    ['400', 'invalid_transaction', ['solanaFacilitator']],
    ['502', 'broadcast_failed', ['solanaFacilitator']],
  ];

  for (const [status, code, operations] of required) {
    test(`${status} ${code}`, () => {
      for (const id of operations) {
        const codes = errorCodes(id, status);
        assert.ok(codes.includes(code), `${id} ${status} carries ${code} (has: ${codes.join(', ') || 'nothing'})`);
      }
    });
  }

  test('429 rate_limited and 500 internal_error on every operation', () => {
    for (const o of ops) {
      assert.deepEqual(errorCodes(o.id, '429'), ['rate_limited'], o.id);
      assert.deepEqual(errorCodes(o.id, '500'), ['internal_error'], o.id);
    }
  });

  test('every error response names its codes in an enum (except the quote and the upstream pass-through)', () => {
    for (const o of ops) {
      for (const status of Object.keys(o.op.responses)) {
        if (!/^[45]\d\d$/.test(status) || status === '402') continue;
        if (o.id === 'getHealth' && status === '503') continue; // the Health body itself
        if (o.id === 'mcp' && (status === '400' || status === '406')) continue; // the MCP transport's JSON-RPC error bodies
        const codes = errorCodes(o.id, status);
        assert.ok(codes.length > 0, `${o.id} ${status} has an error enum`);
        // An example of each response carries one of its codes.
        const media = responseOf(o, status).content['application/json'];
        for (const ex of Object.values<Json>(media.examples ?? {})) assert.ok(codes.includes(deref(ex).value.error), `${o.id} ${status} example`);
      }
      if (PAID.includes(o.id)) assert.equal(deref(o.op.responses['402']).content['application/json'].schema.$ref, schemaPtr('PaymentQuote'));
    }
  });

  test('the error body: error required; message, hint, issues[] {path, message} optional', () => {
    const e = doc.components.schemas.Error;
    assert.deepEqual(e.required, ['error']);
    for (const k of ['message', 'hint', 'issues']) assert.ok(e.properties[k], k);
    assertValid(schemaPtr('Error'), { error: 'invalid_input', issues: [{ path: 'atomic_price', message: 'must be integer' }] }, 'error');
    assert.equal(validatorAt(schemaPtr('Error'))({ message: 'no code' }), false);
    assert.equal(validatorAt(schemaPtr('RegisterSellerConflictError'))({ error: 'path_taken' }), false, 'enum is closed');
  });
});

describe('payments', () => {
  const quoteExample = (): Json => structuredClone(doc.components.examples.PaymentQuote.value);

  test('the quote requires exactly 6 accept entries', () => {
    const q = doc.components.schemas.PaymentQuote;
    assert.deepEqual([q.properties.accepts.minItems, q.properties.accepts.maxItems], [6, 6]);
    assert.deepEqual(q.properties.x402Version.enum, [1]);
    const validate = validatorAt(schemaPtr('PaymentQuote'));
    assert.ok(validate(quoteExample()), JSON.stringify(validate.errors));
    const five = quoteExample();
    five.accepts.pop();
    assert.equal(validate(five), false, '5 entries refused');
    const seven = quoteExample();
    seven.accepts.push(seven.accepts[0]);
    assert.equal(validate(seven), false, '7 entries refused');
    const three = quoteExample();
    three.accepts = [three.accepts[0], three.accepts[2], three.accepts[4]];
    assert.equal(validate(three), false, 'the 3-entry list of some reference pages is refused');
    const v2 = quoteExample();
    v2.x402Version = 2;
    assert.equal(validate(v2), false, 'x402Version is 1');
    const withMessage = { ...quoteExample(), error: 'amount_mismatch', message: 'paid 10000, quote is 20000', hint: 'pay the difference is not possible: pay the full amount again' };
    assert.ok(validate(withMessage), 'the quote plus message and hint');
  });

  test('the example quote has the six entries in the documented order', () => {
    const q = quoteExample();
    assert.deepEqual(
      q.accepts.map((a: Json) => `${a.network}/${a.scheme}/${a.maxTimeoutSeconds}`),
      ['base/exact/60', 'base/transfer-with-authorization/30', 'polygon/exact/60', 'polygon/transfer-with-authorization/30', 'solana/exact/60', 'solana/spl-transfer/60'],
    );
  });

  test('accept entries: every field required, extra tied to the scheme', () => {
    const validate = validatorAt(schemaPtr('AcceptEntry'));
    const [exact, twa, , , solExact, spl] = quoteExample().accepts;
    for (const entry of [exact, twa, solExact, spl]) assert.ok(validate(entry), JSON.stringify(validate.errors));
    for (const field of ['scheme', 'network', 'maxAmountRequired', 'asset', 'payTo', 'resource', 'description', 'mimeType', 'maxTimeoutSeconds', 'extra']) {
      const e = structuredClone(exact);
      delete e[field];
      assert.equal(validate(e), false, `missing ${field} refused`);
    }
    assert.equal(validate({ ...exact, extra: twa.extra }), false, 'exact with a transfer-with-authorization extra');
    assert.equal(validate({ ...spl, extra: { ...spl.extra, facilitatorBroadcast: true } }), false, "facilitatorBroadcast is the string 'true'");
    assert.equal(validate({ ...exact, extra: { ...exact.extra, perPagePrice: '10000' } }), false, 'perPagePrice is an integer');
    assert.equal(validate({ ...twa, network: 'solana' }), false, 'no transfer-with-authorization on Solana');
    assert.equal(validate({ ...exact, maxAmountRequired: 20000 }), false, 'maxAmountRequired is a decimal string');
  });

  test('receipts: the four payloads validate; the X-Payment example decodes to a valid receipt', () => {
    const validate = validatorAt(schemaPtr('PaymentReceipt'));
    const tx = '0x9f3b2c1d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b';
    const receipts = [
      { x402Version: 1, scheme: 'exact', network: 'base', payload: { tx_hash: tx } },
      { x402Version: 1, scheme: 'spl-transfer', network: 'solana', payload: doc.components.schemas.SolanaTransferPayload.example },
      {
        x402Version: 1,
        scheme: 'exact',
        network: 'polygon',
        payload: {
          signature: '0x' + 'ab'.repeat(65),
          authorization: { from: '0x' + '22'.repeat(20), to: '0x' + '11'.repeat(20), value: '20000', validAfter: '0', validBefore: '1767225660', nonce: '0x' + '7c'.repeat(32) },
        },
      },
      { x402Version: 1, scheme: 'exact', network: 'solana', payload: { transaction: 'AQAB' } },
    ];
    for (const r of receipts) assert.ok(validate(r), `${JSON.stringify(r)}: ${JSON.stringify(validate.errors)}`);
    assert.equal(validate({ ...receipts[0], payload: {} }), false, 'empty payload refused');
    assert.equal(validate({ ...receipts[0], scheme: 'transfer-with-authorization' }), false, 'scheme exact or spl-transfer');
    assert.equal(validate({ ...receipts[0], payload: { tx_hash: '0x1234' } }), false, 'a tx hash is 32 bytes');

    const header = doc.components.parameters.XPayment.example as string;
    assert.match(header, /^[A-Za-z0-9_-]+$/, 'base64url without padding');
    assertValid(schemaPtr('PaymentReceipt'), JSON.parse(Buffer.from(header, 'base64url').toString('utf8')), 'decoded X-Payment example');
  });

  test('X-PAYMENT-RESPONSE and X-Session-Token examples decode to valid objects', () => {
    const response = doc.components.headers.XPaymentResponse.example as string;
    assertValid(schemaPtr('PaymentResponse'), JSON.parse(Buffer.from(response, 'base64').toString('utf8')), 'decoded X-PAYMENT-RESPONSE');
    const token = doc.components.schemas.SessionToken.example;
    const header = Buffer.from(JSON.stringify(token)).toString('base64url');
    assertValid(schemaPtr('SessionToken'), JSON.parse(Buffer.from(header, 'base64url').toString('utf8')), 'decoded session token');
    assert.equal(validatorAt(schemaPtr('SessionToken'))({ ...token, network: 'solana' }), false, 'EVM networks only');
    // The instructions' example names the same fields as the token.
    const instructions = doc.components.examples.SessionTokenInstructions.value;
    assert.deepEqual(Object.keys(instructions.example).sort(), [...doc.components.schemas.SessionToken.required].sort());
  });

  test('seller endpoint input: atomic_price must be a JSON integer >= 1', () => {
    const validate = validatorAt(schemaPtr('AddEndpointRequest'));
    const body: Json = structuredClone(doc.paths['/v1/_seller/{wallet}/endpoints'].post.requestBody.content['application/json'].examples.signed.value);
    assert.ok(validate(body), JSON.stringify(validate.errors));
    assert.equal(validate({ ...body, atomic_price: '20000' }), false, 'string refused');
    assert.ok(validate.errors!.some((e) => e.instancePath === '/atomic_price' && e.keyword === 'type'), 'the issue names atomic_price');
    assert.equal(validate({ ...body, atomic_price: 0 }), false, '0 refused');
    assert.equal(validate({ ...body, path_suffix: 'ab' }), false, 'short path_suffix refused');
    assert.equal(validate({ ...body, desc: 'x'.repeat(201) }), false, 'desc max 200');
    assert.equal(validate({ ...body, unit: 'x'.repeat(33) }), false, 'unit max 32');
    assert.equal(validate({ ...body, mode: 'free' }), false, 'mode enum');
    assert.equal(validate({ ...body, alert_email: 'nope' }), false, 'alert_email is an email');
    const { signature: _s, timestamp: _t, ...bearer } = body;
    assert.ok(validate(bearer), 'signature and timestamp may be left out (Bearer endpoints:write)');
  });

  test('seller registration: shape A or shape B, not a mix', () => {
    const validate = validatorAt(schemaPtr('RegisterSellerRequest'));
    const examples = doc.paths['/v1/_seller/register'].post.requestBody.content['application/json'].examples;
    assert.ok(validate(examples.shapeA.value), JSON.stringify(validate.errors));
    assert.ok(validate(examples.shapeB.value), JSON.stringify(validate.errors));
    assert.equal(validate({ ...examples.shapeB.value, ts: 1 }), false, 'mixed shapes refused');
    assert.equal(validate({ ...examples.shapeB.value, slug: 'Bad_Slug' }), false, 'slug pattern');
    assert.equal(validate({ ...examples.shapeB.value, wallet: '0x123' }), false, 'wallet pattern');
  });
});

describe('openapi-backend routing', () => {
  let api: OpenAPIBackend;

  before(async () => {
    const routed = (c: Context) => ({ operationId: c.operation?.operationId });
    api = new OpenAPIBackend({
      definition: structuredClone(doc),
      strict: true,
      customizeAjv: (_ajv, opts) => newAjv({ ...opts, strict: false }) as Json,
      handlers: {
        ...Object.fromEntries(generatedOperationIds.map((id) => [id, routed])),
        validationFail: routed,
        unauthorizedHandler: routed,
        notFound: () => ({ operationId: '404' }),
        methodNotAllowed: () => ({ operationId: '405' }),
      },
    });
    await api.init();
  });

  const route = async (method: string, path: string, body?: unknown) =>
    ((await api.handleRequest({
      method,
      path,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })) as { operationId: string }).operationId;

  test('fixed /v1/_... paths win over /v1/{slug}/{path_suffix}', async () => {
    // Both also match the two-segment template; openapi-backend prefers an exact path match
    // (and then the template with the longest literal part), whatever the document order.
    assert.equal(await route('POST', '/v1/_seller/register', {}), 'registerSeller');
    assert.equal(await route('POST', '/v1/_facilitator/solana', {}), 'solanaFacilitator');
    assert.equal(api.matchOperation({ method: 'POST', path: '/v1/_seller/register', headers: {} })?.operationId, 'registerSeller');
    assert.equal(api.matchOperation({ method: 'POST', path: '/v1/_facilitator/solana', headers: {} })?.operationId, 'solanaFacilitator');
    assert.equal(await route('POST', '/v1/_seller/register/', {}), 'registerSeller', 'trailing slash ignored');
  });

  test('the same holds when the catch-all is declared first', async () => {
    const reordered = structuredClone(doc);
    const catchAll = reordered.paths['/v1/{slug}/{path_suffix}'];
    delete reordered.paths['/v1/{slug}/{path_suffix}'];
    reordered.paths = { '/v1/{slug}/{path_suffix}': catchAll, ...reordered.paths };
    const other = new OpenAPIBackend({ definition: reordered, quick: true });
    await other.init();
    assert.equal(other.matchOperation({ method: 'POST', path: '/v1/_seller/register', headers: {} })?.operationId, 'registerSeller');
    assert.equal(other.matchOperation({ method: 'POST', path: '/v1/_facilitator/solana', headers: {} })?.operationId, 'solanaFacilitator');
  });

  test('seller paths go to callSellerEndpoint, other paths to their own operations', async () => {
    assert.equal(await route('POST', '/v1/acme-ocr/parse-receipt', {}), 'callSellerEndpoint');
    // Unknown `_` paths reach callSellerEndpoint too, whose handler answers 404 endpoint_not_found
    // (a slug never starts with `_`).
    assert.equal(await route('POST', '/v1/_seller/anything', {}), 'callSellerEndpoint');
    assert.equal(await route('POST', '/v1/pdf-md'), 'pdfMd');
    assert.equal(await route('GET', '/v1/_meta'), 'getMeta');
    assert.equal(await route('GET', '/v1/_health'), 'getHealth');
    assert.equal(await route('GET', '/v1/_session-token'), 'getSessionToken');
    // Metrics are the operator listener's (src/metrics/operator-server.ts), not the API's.
    assert.equal(await route('GET', '/metrics'), '404');
    assert.equal(await route('POST', '/v1/keys', {}), 'issueApiKey');
    assert.equal(await route('GET', '/v1/keys'), 'listApiKeys');
    assert.equal(await route('DELETE', '/v1/keys/7'), 'revokeApiKey');
    const w = '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9';
    assert.equal(await route('POST', `/v1/_seller/${w}/endpoints`, {}), 'addSellerEndpoint');
    assert.equal(await route('GET', `/v1/_seller/${w}/endpoints`), 'listSellerEndpoints');
    assert.equal(await route('PATCH', `/v1/_seller/${w}/endpoints/12`, {}), 'updateSellerEndpoint');
    assert.equal(await route('DELETE', `/v1/_seller/${w}/endpoints/12`), 'deleteSellerEndpoint');
    assert.equal(await route('POST', `/v1/_seller/${w}/resume`, {}), 'resumeSeller');
    assert.equal(await route('GET', `/v1/_seller/${w}/stats`), 'getSellerStats');
    assert.equal(await route('GET', `/v1/_seller/${w}/errors`), 'getSellerErrors');
    assert.equal(await route('POST', `/v1/_seller/${w}/payouts`, {}), 'requestPayout');
    assert.equal(await route('GET', '/v1/account'), 'getAccount');
  });

  test('method mismatches are 405, unknown paths 404, never a seller call', async () => {
    assert.equal(await route('GET', '/v1/_seller/register'), '405');
    assert.equal(await route('GET', '/v1/acme-ocr/parse-receipt'), '405');
    assert.equal(await route('GET', '/v1/nope'), '404');
    assert.equal(await route('POST', '/v1/a/b/c', {}), '404');
  });

  test('a seller slug equal to a fixed first segment only shadows other methods', async () => {
    // `keys` is a valid slug. POST /v1/keys/{suffix} is a seller call; DELETE /v1/keys/{id} revokes a key.
    assert.equal(await route('POST', '/v1/keys/parse-receipt', {}), 'callSellerEndpoint');
    assert.equal(await route('DELETE', '/v1/keys/parse-receipt'), 'revokeApiKey');
  });
});
