/**
 * Property: no request, however hostile, gets a 5xx or crashes the service. For every
 * operation of openapi.yaml, fast-check generates requests from the contract itself — path,
 * query and header parameters, bodies built from the request schemas — and mutates them:
 * wrong types, missing fields, huge and unicode strings, NUL, bad %-escapes, invalid UTF-8,
 * truncated multipart envelopes and PDFs, forged payment proofs. Against the real server on
 * port 0, a real PostgreSQL database and a test devnet (so payment proofs reach the chain
 * adapters), every answer must be below 500 — except a 503 that the operation
 * documents — and every error must be a JSON body with a string `error`. The process must
 * still answer /v1/_health at the end. Runs are bounded; a failure prints its seed and the
 * shrunk request.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { loadContract } from '../../src/http/contract.ts';
import { makePdf, startPaidTestEnv, type PaidTestEnv, xPayment } from '../helpers/paid.ts';

/** Requests per operation; about 25 operations, so about a thousand requests in all. */
const RUNS_PER_OPERATION = 40;

let env: PaidTestEnv;
let pdf: Buffer;
let port: number;

before(async () => {
  // No polling for unseen transactions: forged tx hashes answer payment_unconfirmed at once.
  env = await startPaidTestEnv('edge_fuzz', { PAYMENT_POLL_TIMEOUT_MS: '0', TOOL_JOB_TIMEOUT_MS: '30000' });
  port = Number(new URL(env.t.baseUrl).port);
  pdf = await makePdf(1, 'fuzz');
});
after(async () => {
  await env?.close();
});

interface HostileRequest {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * node:http, not fetch: fetch would normalise the target and refuse some header values. A
 * connection per request: what is under test is each answer, not the client's keep-alive
 * races with connections the server closes after a refusal.
 */
function send(req: HostileRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.target, headers: req.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(req.body ?? undefined);
  });
}

// ---------- hostile values ----------

const WALLETS = ['0x1111111111111111111111111111111111111111', '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'];
const BAD_ESCAPES = ['%zz', '%', 'a%', '%f', '%ff', '%ED%A0%80', '%C3', '%00', 'a%00b', '%2F', '%2e%2e', '..', '%25', '%u0041', '%C0%AF'];

const hostileText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }), // any code point, lone surrogates included
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff', '\u202e', '\ufeff', 'null', 'undefined', '-1', '0', '1e309', 'NaN', '0x', '[]', '{}', '<script>', "'; drop table payment; --", '../../etc/passwd'),
  fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.nat({ max: 3_000 }).map((n) => '€'.repeat(n)),
);

const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt({ min: -(10n ** 80n), max: 10n ** 80n }).map(String),
  fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 3 }),
  fc.object({ maxDepth: 2 }),
);

/** A path segment: a plausible value, a hostile string percent-encoded, or a raw bad escape. */
const pathSegment = (name: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(name === 'wallet' ? WALLETS : name === 'id' ? ['1', '7', '0', '-1', '99999999999999999999'] : ['acme-ocr', 'parse-receipt', 'abc'])) },
    { weight: 2, arbitrary: hostileText.filter((s) => s.length > 0 && s.length < 3000).map(encodeSegment) },
    { weight: 2, arbitrary: fc.constantFrom(...BAD_ESCAPES) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...BAD_ESCAPES), fc.string({ maxLength: 5 })).map(([a, b]) => encodeSegment(b) + a) },
  );

/** Percent-encodes what node:http refuses in a target; lone surrogates become U+FFFD's bytes. */
function encodeSegment(s: string): string {
  return [...s].map((ch) => (/^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/.test(ch) ? ch : [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''))).join('');
}

/** Header values node:http can send: no control characters; latin-1 bytes allowed. */
const headerText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 200 }).map((s) => s.replace(/[\x00-\x1f\x7f]/g, '')) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }).map((s) => Buffer.from(s, 'utf8').toString('latin1').replace(/[\x00-\x1f\x7f]/g, '')) },
  // Large but mostly under Node's 16 KB header limit (over it is a 431, tested in edge-http).
  { weight: 1, arbitrary: fc.nat({ max: 5_000 }).map((n) => 'A'.repeat(n)) },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', 'null', '=', '==', 'e30', 'W10', '%00') },
);

const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v) ?? 'undefined').toString('base64url');
const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString('hex')}`);

/** Payment proofs shaped like the real ones, with every field hostile in turn. */
const paymentHeader = fc.oneof(
  headerText,
  fc.record({ x402Version: hostileJsonValue, scheme: hostileJsonValue, network: hostileJsonValue, payload: hostileJsonValue }, { requiredKeys: [] }).map(b64url),
  fc.tuple(fc.constantFrom('base', 'polygon', 'solana', 'ethereum', ''), fc.constantFrom('exact', 'spl-transfer', 'transfer-with-authorization', 'x'), hex(32)).map(([network, scheme, tx]) => xPayment(network, scheme, { tx_hash: tx })),
  fc.tuple(fc.constantFrom('base', 'polygon'), hex(65), hex(20), hex(32), fc.oneof(fc.constant('10000'), hostileJsonValue)).map(([network, signature, from, nonce, value]) =>
    xPayment(network, 'exact', { signature, authorization: { from, to: from, value, validAfter: '0', validBefore: String(2 ** 40), nonce } }),
  ),
  fc.record({ signature: hostileJsonValue, from: hostileJsonValue, to: hostileJsonValue, amount: hostileJsonValue, mint: hostileJsonValue, transaction: fc.oneof(hostileJsonValue, fc.base64String({ maxLength: 400 })) }, { requiredKeys: [] }).map((payload) => xPayment('solana', 'exact', payload)),
  fc.json({ maxDepth: 3 }).map((j) => Buffer.from(j).toString('base64')),
).map((h) => h.slice(0, 12_000)); // mostly under Node's 16 KB header limit (a 431)

const sessionTokenHeader = fc.oneof(
  headerText,
  fc
    .record({ network: hostileJsonValue, from: fc.oneof(hex(20), hostileJsonValue), to: hostileJsonValue, value: hostileJsonValue, validAfter: hostileJsonValue, validBefore: hostileJsonValue, nonce: fc.oneof(hex(32), hostileJsonValue), signature: fc.oneof(hex(65), hostileJsonValue) }, { requiredKeys: [] })
    .map(b64url),
).map((h) => h.slice(0, 12_000));

// ---------- bodies from the contract's schemas ----------

type Schema = Record<string, any>;

function fromSchema(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostileJsonValue;
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (schema.allOf) return fc.oneof(...schema.allOf.map((s: Schema) => fromSchema(s, depth + 1)));
  if (schema.anyOf || schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => fromSchema(s, depth + 1)));
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const examples = [schema.example, ...(schema.examples ?? [])].filter((e) => e !== undefined);
  const arbs: fc.Arbitrary<unknown>[] = examples.length ? [fc.constantFrom(...examples)] : [];
  for (const type of types) {
    if (type === 'string') arbs.push(schema.pattern ? fc.stringMatching(new RegExp(schema.pattern), { maxLength: 80 }) : fc.string({ maxLength: schema.maxLength ?? 80 }));
    else if (type === 'integer') arbs.push(fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 10 ** 12 }));
    else if (type === 'number') arbs.push(fc.double());
    else if (type === 'boolean') arbs.push(fc.boolean());
    else if (type === 'null') arbs.push(fc.constant(null));
    else if (type === 'array') arbs.push(fc.array(mutated(schema.items, depth + 1), { maxLength: 4 }));
    else if (type === 'object' || schema.properties) {
      const props = Object.entries<Schema>(schema.properties ?? {});
      arbs.push(
        fc
          .tuple(fc.record(Object.fromEntries(props.map(([k, s]) => [k, mutated(s, depth + 1)])), { requiredKeys: [] }), fc.dictionary(fc.string({ maxLength: 10 }), hostileJsonValue, { maxKeys: 2 }))
          .map(([known, extra]) => ({ ...extra, ...known })),
      );
    }
  }
  return arbs.length ? fc.oneof(...arbs) : hostileJsonValue;
}

/** Mostly what the schema asks, sometimes anything at all (wrong type, NUL, huge). */
const mutated = (schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> => fc.oneof({ weight: 3, arbitrary: fromSchema(schema, depth) }, { weight: 1, arbitrary: hostileJsonValue });

const rawGarbage = fc.oneof(
  fc.string().map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.constantFrom('', '{', '{"a":', 'null', '[]', '"str"', '{"a":"\\u0000"}', '{"a":"\\ud800"}', '\ufeff{}').map((s) => Buffer.from(s)),
  fc.nat({ max: 20_000 }).map((n) => Buffer.from('['.repeat(n) + ']'.repeat(n))),
  fc.constant(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])), // {"a":"<not UTF-8>"}
);

/** A PDF, cut short, with bytes flipped, or not a PDF at all. */
const pdfLike = (): fc.Arbitrary<Buffer> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(pdf) },
    { weight: 2, arbitrary: fc.nat({ max: pdf.length }).map((n) => pdf.subarray(0, n)) },
    { weight: 2, arbitrary: fc.array(fc.tuple(fc.nat({ max: pdf.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).map((flips) => {
        const copy = Buffer.from(pdf);
        for (const [at, byte] of flips) copy[at] = byte;
        return copy;
      }) },
    { weight: 1, arbitrary: fc.constant(Buffer.from('%PDF-1.7\n%%EOF\n')) },
    { weight: 1, arbitrary: rawGarbage },
  );

/** multipart/form-data envelopes: complete, truncated anywhere, without the file part, with a lying boundary. */
const multipart = (): fc.Arbitrary<{ type: string; body: Buffer }> =>
  fc
    .record({
      boundary: fc.oneof(fc.constant('fuzzBoundary'), fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,70}$/)),
      declared: fc.oneof({ weight: 4, arbitrary: fc.constant<string | null>(null) }, { weight: 1, arbitrary: fc.constantFrom<string | null>('other', '', '"quoted"', 'x'.repeat(80)) }),
      partName: fc.constantFrom('file', 'file', 'other', ''),
      partType: fc.constantFrom('application/pdf', 'application/octet-stream', 'text/plain', ''),
      doc: pdfLike(),
      extraField: fc.boolean(),
      cut: fc.oneof({ weight: 2, arbitrary: fc.constant<number | null>(null) }, { weight: 2, arbitrary: fc.nat() }),
      headerNoise: fc.constantFrom('', 'garbage line\r\n', 'content-disposition: form-data\r\n'),
    })
    .map(({ boundary, declared, partName, partType, doc, extraField, cut, headerNoise }) => {
      const parts = [
        ...(extraField ? [Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="note"\r\n\r\nhello\r\n`)] : []),
        Buffer.from(`--${boundary}\r\n${headerNoise}content-disposition: form-data; name="${partName}"; filename="a.pdf"\r\n${partType ? `content-type: ${partType}\r\n` : ''}\r\n`),
        doc,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ];
      const full = Buffer.concat(parts);
      const body = cut === null ? full : full.subarray(0, cut % (full.length + 1));
      return { type: `multipart/form-data; boundary=${declared ?? boundary}`, body };
    });

// ---------- requests per operation ----------

interface Op {
  operationId: string;
  method: string;
  path: string;
  parameters: Schema[];
  requestBody?: Schema;
  documented: Set<string>;
  /** Statuses the contract answers with a JSON-RPC message (/mcp: the MCP transport's own errors). */
  jsonRpc: Set<string>;
}

function requestFor(op: Op): fc.Arbitrary<HostileRequest> {
  const pathNames = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const headerParams = op.parameters.filter((p) => p.in === 'header').map((p) => String(p.name).toLowerCase());
  const content = op.requestBody?.content ? Object.keys(op.requestBody.content) : [];
  const jsonSchema = op.requestBody?.content?.['application/json']?.schema;
  const isTool = content.includes('application/pdf');

  // Tools: often a readable PDF, so that the request gets past inspection to the quote and
  // the payment proof is actually judged.
  const body: fc.Arbitrary<{ type: string | null; body: Buffer | null }> = isTool
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constant({ type: 'application/pdf', body: pdf }) },
        { weight: 2, arbitrary: pdfLike().map((b) => ({ type: 'application/pdf', body: b })) },
        { weight: 2, arbitrary: multipart() },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom('application/octet-stream', 'image/png', 'text/plain', 'application/json', 'multipart/form-data', 'multipart/form-data; boundary=', ''), pdfLike()).map(([type, b]) => ({ type: type || null, body: b })) },
      )
    : jsonSchema || content.length
      ? fc.oneof(
          { weight: 4, arbitrary: mutated(jsonSchema).map((v) => ({ type: 'application/json', body: Buffer.from(JSON.stringify(v) ?? 'null') })) },
          { weight: 2, arbitrary: rawGarbage.map((b) => ({ type: 'application/json', body: b })) },
          { weight: 1, arbitrary: fc.tuple(fc.constantFrom('text/plain', 'application/pdf', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', ''), rawGarbage).map(([type, b]) => ({ type: type || null, body: b })) },
        )
      : fc.oneof({ weight: 3, arbitrary: fc.constant({ type: null, body: null }) }, { weight: 1, arbitrary: rawGarbage.map((b) => ({ type: 'application/json', body: b })) });

  // A bad escape anywhere in the query is a 400 before anything else: keep them to a share of
  // the runs so that the rest reach validation and the handlers.
  const query = fc
    .tuple(
      fc.record(
        Object.fromEntries(
          queryParams.map((p) => [
            p.name,
            fc.oneof({ weight: 3, arbitrary: fromSchema(p.schema).map((v) => encodeSegment(String(v))) }, { weight: 2, arbitrary: hostileText.map(encodeSegment) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_ESCAPES) }),
          ]),
        ),
        { requiredKeys: [] },
      ),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant<[string, string][]>([]) },
        { weight: 1, arbitrary: fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 8 }).map(encodeSegment), fc.constantFrom(...BAD_ESCAPES)), fc.oneof(hostileText.map(encodeSegment), fc.constantFrom(...BAD_ESCAPES))), { minLength: 1, maxLength: 2 }) },
      ),
    )
    .map(([known, extra]) => [...Object.entries(known), ...extra].map(([k, v]) => `${k}=${v}`).join('&'));

  const headerNames = [...new Set([...headerParams, 'x-payment', 'x-session-token', 'authorization', 'x-signature', 'x-timestamp', 'x-request-id'])];
  // Each header is usually absent (X-Payment half the time), so one hostile header at a time
  // reaches the code that reads it instead of all of them adding up to a 431.
  const sometimes = <T>(arb: fc.Arbitrary<T>, absentWeight: number) => fc.oneof({ weight: absentWeight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
  const headers = fc.record(
    Object.fromEntries(
      headerNames.map((name) => [
        name,
        name === 'x-payment'
          ? sometimes(paymentHeader, 1)
          : name === 'x-session-token'
            ? sometimes(sessionTokenHeader, 3)
            : name === 'authorization'
              ? sometimes(fc.oneof(headerText, headerText.map((s) => `Bearer ${s}`), fc.constant('Bearer pc_live_' + 'A'.repeat(43))), 3)
              : sometimes(headerText, 3),
      ]),
    ),
  );

  return fc
    .record({
      segments: fc.tuple(...pathNames.map(pathSegment)),
      query,
      headers,
      body,
      trailingSlash: fc.boolean(),
    })
    .map(({ segments, query: q, headers: h, body: b, trailingSlash }) => {
      let i = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => segments[i++]) + (trailingSlash ? '/' : '');
      const all: Record<string, string> = { ...(h as Record<string, string>) };
      for (const [k, v] of Object.entries(all)) if (v === undefined) delete all[k];
      if (b.type !== null) all['content-type'] = b.type;
      // Framed, even on GET: node:http would otherwise send a GET body unframed, which the
      // server rightly refuses as a malformed request before any operation sees it.
      if (b.body !== null) all['content-length'] = String(b.body.length);
      // Per node:http, the total header size must stay under the 16 KB that would be a 431.
      return { method: op.method, target: path + (q ? `?${q}` : ''), headers: all, body: b.body };
    });
}

function check(op: Op, req: HostileRequest, res: Answer): void {
  const what = `${op.operationId}: ${req.method} ${req.target.slice(0, 300)} -> ${res.status} ${res.body.slice(0, 300)}`;
  if (res.status >= 500) {
    // A 503 (busy / no chains) only where the contract says so.
    assert.ok(res.status === 503 && op.documented.has(String(res.status)), `undocumented 5xx: ${what}`);
  }
  if (res.status >= 400) {
    assert.match(res.contentType, /^application\/json/, `error without a JSON body: ${what}`);
    const body = JSON.parse(res.body);
    // Where the contract says a status carries a JSON-RPC message, its error is the protocol's
    // object ({code, message}); everywhere else the service's own body ({error: string, ...}).
    if (op.jsonRpc.has(String(res.status)) && body.jsonrpc === '2.0') {
      assert.equal(typeof body.error?.code, 'number', `JSON-RPC error without a code: ${what}`);
      assert.equal(typeof body.error?.message, 'string', `JSON-RPC error without a message: ${what}`);
    } else assert.equal(typeof body.error, 'string', `error body without a string error: ${what}`);
  }
}

test('no hostile request to any operation of openapi.yaml gets an undocumented 5xx or a non-JSON error, and the service survives', async (t) => {
  const contract = await loadContract(new URL('../../openapi.yaml', import.meta.url).pathname);
  const ops: Op[] = contract.api.router.getOperations().map((o) => ({
    operationId: o.operationId!,
    method: o.method.toUpperCase(),
    path: o.path,
    parameters: (o.parameters ?? []) as Schema[],
    requestBody: o.requestBody as Schema | undefined,
    documented: new Set(Object.keys(o.responses ?? {})),
    jsonRpc: new Set(
      Object.entries((o.responses ?? {}) as Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>)
        .filter(([, r]) => r.content?.['application/json']?.schema?.properties?.jsonrpc)
        .map(([status]) => status),
    ),
  }));
  assert.ok(ops.length >= 20);
  const statuses = new Map<string, number>();
  for (const op of ops) {
    await fc.assert(
      fc.asyncProperty(requestFor(op), async (req) => {
        const res = await send(req);
        const key = `${op.operationId} ${res.status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        check(op, req, res);
      }),
      { numRuns: RUNS_PER_OPERATION, endOnFailure: false },
    );
  }
  t.diagnostic(`answers by operation and status: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a.localeCompare(b))))}`);
  const health = await fetch(`${env.t.baseUrl}/v1/_health`);
  assert.equal(health.status, 200);
  // Nothing escaped to the last line of defence either.
  const errors = env.rec.lines.filter((l) => l.level === 'error');
  assert.deepEqual(errors.slice(0, 3), []);
});
