/**
 * Seller-side test helpers: wallets that sign SellerActions (the SDK's signers, an EVM key
 * or a Solana key), a real local upstream HTTP(S) server whose behaviour a test switches,
 * the seller calls made through the SDK, and a small JSON client for the malformed requests
 * a typed client cannot send; every answer is checked against openapi.yaml.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { generatePrivateKey } from 'viem/accounts';
import type { Hex } from 'viem';
import nacl from 'tweetnacl';
import { evmActionSigner, solanaActionSigner, type ActionSigner } from '../../sdk/action-signer.ts';
import { createPaycallClient } from '../../sdk/paycall-client.ts';
import { registerMultiChain as registerMultiChainSdk, walletActions, type MultiChainRegistration } from '../../sdk/wallet-actions.ts';
import { assertMatchesContract } from './contract.ts';

export const SERVICE = 'paycall';
export const nowS = () => Math.floor(Date.now() / 1000);

/** Signers are the SDK's own (sdk/action-signer.ts): the tests sign exactly as clients do. */
export type TestSigner = ActionSigner;

export const evmSigner = (key: Hex = generatePrivateKey()): TestSigner => evmActionSigner(key, SERVICE);

export const solanaSigner = (secretKey: Uint8Array = nacl.sign.keyPair().secretKey): TestSigner => solanaActionSigner(secretKey, SERVICE);

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

/** Calls the service and checks the answer against the contract for that operation. */
export async function call(baseUrl: string, operationId: string, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {}): Promise<Answer> {
  const hasBody = opts.body !== undefined || opts.raw !== undefined;
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...(opts.headers ?? {}) },
    body: opts.raw ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined),
  });
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  await assertMatchesContract(operationId, res.status, body);
  return { status: res.status, body, headers: res.headers };
}

/** ok-then-fail: the first request of a path succeeds (the publish probe), later ones get 503. */
export type Behaviour = 'ok' | 'fail' | 'not-json' | 'not-found' | 'redirect' | 'ok-then-fail' | 'slow';

export interface TestUpstream {
  url: string;
  behaviour: Behaviour;
  /** Requests seen, by path. */
  hits: Map<string, number>;
  bodies: string[];
  /** Behaviour per path, over the server-wide one. */
  rules: Map<string, Behaviour>;
  close(): Promise<void>;
}

type State = { behaviour: Behaviour; hits: Map<string, number>; bodies: string[]; rules: Map<string, Behaviour> };
const newState = (): State => ({ behaviour: 'ok', hits: new Map(), bodies: [], rules: new Map() });

function upstreamHandler(state: State) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      state.hits.set(path, (state.hits.get(path) ?? 0) + 1);
      state.bodies.push(Buffer.concat(chunks).toString());
      let behaviour = state.rules.get(path) ?? state.behaviour;
      if (behaviour === 'ok-then-fail') behaviour = state.hits.get(path) === 1 ? 'ok' : 'fail';
      if (behaviour === 'slow') {
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"slow":true}'), 30);
        return;
      }
      switch (behaviour) {
        case 'ok':
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path }));
          break;
        case 'fail':
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}');
          break;
        case 'not-json':
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
          break;
        case 'not-found':
          res.writeHead(404).end();
          break;
        case 'redirect':
          res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
          break;
      }
    });
  };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function startUpstream(): Promise<TestUpstream> {
  const state = newState();
  const server = createHttpServer(upstreamHandler(state));
  const port = await listen(server);
  return wrap(server, `http://127.0.0.1:${port}`, state);
}

/** An HTTPS upstream with a fresh self-signed certificate for localhost; caFile trusts it. */
export async function startHttpsUpstream(): Promise<TestUpstream & { caFile: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'paycall-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  const state = newState();
  const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, upstreamHandler(state));
  const port = await listen(server);
  return { ...wrap(server, `https://localhost:${port}`, state), caFile: cert };
}

function wrap(server: Server, url: string, state: State): TestUpstream {
  return {
    url,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(b: Behaviour) {
      state.behaviour = b;
    },
    hits: state.hits,
    bodies: state.bodies,
    rules: state.rules,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Waits for a condition the service reaches on its own (scheduler work); no timing assertion. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, limitMs = 60_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The SDK's client for a service (sdk/): seller helpers call the API the way clients do. */
const sdkApi = (baseUrl: string) => createPaycallClient({ baseUrl }).api;

/** An SDK answer as an Answer, checked against the contract like every helper call. */
async function sdkAnswer(operationId: string, r: { data?: unknown; error?: unknown; response: Response }): Promise<Answer> {
  const body = r.data ?? r.error;
  await assertMatchesContract(operationId, r.response.status, body);
  return { status: r.response.status, body, headers: r.response.headers };
}

/** Registers a seller with shape B. */
export async function register(baseUrl: string, signer: TestSigner, slug: string): Promise<Answer> {
  return sdkAnswer('registerSeller', await walletActions(sdkApi(baseUrl), signer).register(slug));
}

/** Registers a seller with shape A, every wallet signing the binding payload (the SDK's registerMultiChain). */
export async function registerMultiChain(baseUrl: string, r: MultiChainRegistration): Promise<Answer> {
  return sdkAnswer('registerSeller', await registerMultiChainSdk(sdkApi(baseUrl), r));
}

export interface EndpointInput {
  path_suffix: string;
  upstream_url: string;
  atomic_price: number;
  unit: string;
  desc: string;
  mode: 'paywall' | 'proxy';
  sample_body?: unknown;
}

export async function publish(baseUrl: string, signer: TestSigner, e: EndpointInput, timestamp = nowS()): Promise<Answer> {
  return sdkAnswer('addSellerEndpoint', await walletActions(sdkApi(baseUrl), signer, { now: () => timestamp }).publish(e));
}

export async function signedQuery(signer: TestSigner, action: string, timestamp = nowS()): Promise<string> {
  return `sig=${encodeURIComponent(await signer.sign(action, signer.wallet, timestamp))}&ts=${timestamp}`;
}

export async function listEndpoints(baseUrl: string, signer: TestSigner): Promise<Answer> {
  return sdkAnswer('listSellerEndpoints', await walletActions(sdkApi(baseUrl), signer).list());
}

export async function resume(baseUrl: string, signer: TestSigner): Promise<Answer> {
  return sdkAnswer('resumeSeller', await walletActions(sdkApi(baseUrl), signer).resume());
}

export async function deleteEndpoint(baseUrl: string, signer: TestSigner, id: number, timestamp = nowS()): Promise<Answer> {
  return sdkAnswer('deleteSellerEndpoint', await walletActions(sdkApi(baseUrl), signer, { now: () => timestamp }).delete(id));
}

export const endpointInput = (upstreamUrl: string, suffix: string, extra: Partial<EndpointInput> = {}): EndpointInput => ({
  path_suffix: suffix,
  upstream_url: `${upstreamUrl}/${suffix}`,
  atomic_price: 20000,
  unit: 'request',
  desc: `Test endpoint ${suffix}`,
  mode: 'proxy',
  ...extra,
});

/**
 * Probes and health transitions fast enough for a test: the scheduler ticks only when a test
 * runs it, a probe retries at once, two failures degrade an endpoint and four suspend it.
 */
export const FAST_LIFECYCLE_ENV = {
  SCHEDULER_TICK_MS: '0',
  HEALTH_PROBE_INTERVAL_MS: '1',
  PROBE_RETRY_BASE_MS: '1',
  PROBE_RETRY_MAX_MS: '1',
  ENDPOINT_DEGRADE_AFTER_FAILURES: '2',
  ENDPOINT_RECOVER_AFTER_SUCCESSES: '2',
  ENDPOINT_SUSPEND_AFTER_FAILURES: '4',
} as const;
