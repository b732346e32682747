/**
 * Solana JSON-RPC over HTTP (and WebSocket subscriptions) in front of an SvmLedger. It serves
 * what @solana/web3.js 1.x and @solana/spl-token use to send, confirm and read transactions;
 * any other method answers -32601 at once, so a client never hangs on the devnet.
 *
 * web3.js derives the WebSocket URL as port + 1 of the HTTP URL, so the server listens on a
 * pair of adjacent ports (both accept HTTP and WebSocket).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccountLayout, ACCOUNT_SIZE, MintLayout, MINT_SIZE } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import type { Logger } from '../../src/log.ts';
import { encodeAccount, encodeTransaction, uiAmount, type AccountEncoding } from './rpc-encoding.ts';
import { RpcFailure, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, SLOTS_PER_EPOCH, type DecodedAccount, type SvmLedger } from './svm-ledger.ts';
import { acceptWebSocket, type WebSocketConnection } from './websocket.ts';

const MAX_BODY = 8 * 1024 * 1024;
const API_VERSION = '2.2.0';

export interface SolanaRpcServer {
  url: string;
  wsUrl: string;
  port: number;
  close(): Promise<void>;
}

type Params = unknown[];
type Config = Record<string, unknown>;

const invalidParams = (message: string) => new RpcFailure(-32602, `Invalid params: ${message}`);

function pubkeyParam(value: unknown, name = 'pubkey'): string {
  if (typeof value !== 'string') throw invalidParams(`${name} must be a base58 string`);
  try {
    return new PublicKey(value).toBase58();
  } catch {
    throw new RpcFailure(-32602, `Invalid param: Invalid ${name}`);
  }
}

function configParam(value: unknown): Config {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams('configuration must be an object');
  return value as Config;
}

function decodeWire(value: unknown, encoding: unknown): Uint8Array {
  if (typeof value !== 'string') throw invalidParams('transaction must be a string');
  // Agave's default is base58 (deprecated but still the default); web3.js sends base64.
  if (encoding === undefined || encoding === 'base58') {
    try {
      return bs58.decode(value);
    } catch {
      throw new RpcFailure(-32602, 'invalid transaction: base58 decode failed');
    }
  }
  if (encoding === 'base64') return Buffer.from(value, 'base64');
  throw invalidParams(`unsupported encoding: ${String(encoding)}`);
}

/** The method table; pure functions of the ledger so a test can call them without HTTP. */
export function createSolanaRpcMethods(ledger: SvmLedger) {
  const context = () => ({ slot: ledger.slot(), apiVersion: API_VERSION });
  const withContext = <T>(value: T) => ({ context: context(), value });

  const decimalsOf = (mint: string): number => {
    const a = ledger.getAccount(mint);
    if (!a || a.data.length < MINT_SIZE) return 0;
    return MintLayout.decode(a.data.subarray(0, MINT_SIZE)).decimals;
  };

  const tokenAccount = (address: string): { account: DecodedAccount; mint: string; owner: string; amount: bigint } | null => {
    const account = ledger.getAccount(address);
    if (!account || (account.owner !== TOKEN_PROGRAM && account.owner !== TOKEN_2022_PROGRAM) || account.data.length < ACCOUNT_SIZE) return null;
    if (account.data.length === MINT_SIZE) return null;
    const a = AccountLayout.decode(account.data.subarray(0, ACCOUNT_SIZE));
    return { account, mint: a.mint.toBase58(), owner: a.owner.toBase58(), amount: a.amount };
  };

  const accountOut = (account: DecodedAccount | null, cfg: Config) =>
    encodeAccount(account, cfg.encoding as AccountEncoding | undefined, cfg.dataSlice as { offset: number; length: number } | undefined, decimalsOf);

  const matchesFilters = (account: DecodedAccount, filters: unknown): boolean => {
    if (!Array.isArray(filters)) return true;
    return filters.every((f: Record<string, unknown>) => {
      if (typeof f.dataSize === 'number') return account.data.length === f.dataSize;
      const memcmp = f.memcmp as { offset: number; bytes: string; encoding?: string } | undefined;
      if (memcmp) {
        const bytes = memcmp.encoding === 'base64' ? Buffer.from(memcmp.bytes, 'base64') : Buffer.from(bs58.decode(memcmp.bytes));
        return Buffer.from(account.data.subarray(memcmp.offset, memcmp.offset + bytes.length)).equals(bytes);
      }
      return true;
    });
  };

  const signatureStatus = (signature: string) => {
    const r = ledger.getTransaction(signature);
    if (!r) return null;
    // The devnet has instant finality: a landed transaction is final at once.
    return { slot: r.slot, confirmations: null, err: r.meta.err, status: r.meta.err === null ? { Ok: null } : { Err: r.meta.err }, confirmationStatus: 'finalized' };
  };

  const methods: Record<string, (params: Params) => unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': API_VERSION, 'feature-set': 0 }),
    getGenesisHash: () => ledger.genesisHash,
    getIdentity: () => ({ identity: ledger.genesisHash }),
    getSlot: () => ledger.slot(),
    getBlockHeight: () => ledger.blockHeight(),
    getTransactionCount: () => ledger.transactionCount(),
    getFirstAvailableBlock: () => 0,
    getEpochInfo: () => {
      const slot = ledger.slot();
      return {
        absoluteSlot: slot,
        blockHeight: ledger.blockHeight(),
        epoch: Math.floor(slot / SLOTS_PER_EPOCH),
        slotIndex: slot % SLOTS_PER_EPOCH,
        slotsInEpoch: SLOTS_PER_EPOCH,
        transactionCount: ledger.transactionCount(),
      };
    },
    getEpochSchedule: () => ({ firstNormalEpoch: 0, firstNormalSlot: 0, leaderScheduleSlotOffset: SLOTS_PER_EPOCH, slotsPerEpoch: SLOTS_PER_EPOCH, warmup: false }),
    getLatestBlockhash: () => withContext(ledger.latestBlockhash()),
    isBlockhashValid: ([blockhash]) => {
      if (typeof blockhash !== 'string') throw invalidParams('blockhash must be a string');
      return withContext(ledger.isBlockhashValid(blockhash));
    },
    getBlockTime: ([slot]) => {
      const t = typeof slot === 'number' ? ledger.blockTimeOf(slot) : null;
      if (t === null) throw new RpcFailure(-32004, `Block not available for slot ${String(slot)}`);
      return t;
    },
    getMinimumBalanceForRentExemption: ([size]) => {
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw invalidParams('data length must be a non-negative integer');
      return ledger.minimumBalanceForRentExemption(size);
    },
    getFeeForMessage: ([message]) => {
      if (typeof message !== 'string') throw invalidParams('message must be a base64 string');
      const bytes = Buffer.from(message, 'base64');
      // A validator answers null when the message's blockhash has expired.
      const fee = ledger.feeForMessage(bytes);
      const blockhash = bs58.encode(extractBlockhash(bytes));
      return withContext(ledger.isBlockhashValid(blockhash) ? fee : null);
    },
    getRecentPrioritizationFees: () => [],
    getBalance: ([pubkey]) => withContext(ledger.getAccount(pubkeyParam(pubkey))?.lamports ?? 0),
    getAccountInfo: ([pubkey, cfg]) => withContext(accountOut(ledger.getAccount(pubkeyParam(pubkey)), configParam(cfg))),
    getMultipleAccounts: ([pubkeys, cfg]) => {
      if (!Array.isArray(pubkeys)) throw invalidParams('pubkeys must be an array');
      if (pubkeys.length > 100) throw invalidParams('Too many inputs provided; max 100');
      const c = configParam(cfg);
      return withContext(pubkeys.map((p) => accountOut(ledger.getAccount(pubkeyParam(p)), c)));
    },
    getProgramAccounts: ([programId, cfg]) => {
      const c = configParam(cfg);
      const list = ledger
        .programAccounts(pubkeyParam(programId, 'program id'))
        .filter((a) => matchesFilters(a.account, c.filters))
        .map((a) => ({ pubkey: a.pubkey, account: accountOut(a.account, c) }));
      return c.withContext ? withContext(list) : list;
    },
    getTokenAccountBalance: ([pubkey]) => {
      const t = tokenAccount(pubkeyParam(pubkey));
      if (!t) throw new RpcFailure(-32602, 'Invalid param: not a Token account');
      return withContext(uiAmount(t.amount, decimalsOf(t.mint)));
    },
    getTokenSupply: ([mint]) => {
      const a = ledger.getAccount(pubkeyParam(mint, 'mint'));
      if (!a || a.data.length < MINT_SIZE || (a.owner !== TOKEN_PROGRAM && a.owner !== TOKEN_2022_PROGRAM)) throw new RpcFailure(-32602, 'Invalid param: not a Token mint');
      const m = MintLayout.decode(a.data.subarray(0, MINT_SIZE));
      return withContext(uiAmount(m.supply, m.decimals));
    },
    getTokenAccountsByOwner: ([owner, filter, cfg]) => {
      const o = pubkeyParam(owner, 'owner');
      const f = configParam(filter);
      const c = configParam(cfg);
      const mint = f.mint !== undefined ? pubkeyParam(f.mint, 'mint') : undefined;
      const programId = f.programId !== undefined ? pubkeyParam(f.programId, 'program id') : undefined;
      if (!mint && !programId) throw invalidParams('filter must name a mint or a programId');
      const programs = programId ? [programId] : [TOKEN_PROGRAM, TOKEN_2022_PROGRAM];
      const value = programs
        .flatMap((p) => ledger.programAccounts(p))
        .filter((a) => {
          const t = tokenAccount(a.pubkey);
          return t !== null && t.owner === o && (!mint || t.mint === mint);
        })
        .map((a) => ({ pubkey: a.pubkey, account: accountOut(a.account, c) }));
      return withContext(value);
    },
    requestAirdrop: ([pubkey, lamports]) => {
      if (typeof lamports !== 'number' || !Number.isSafeInteger(lamports) || lamports <= 0) throw invalidParams('lamports must be a positive integer');
      return ledger.airdrop(pubkeyParam(pubkey), BigInt(lamports));
    },
    sendTransaction: ([encoded, cfg]) => {
      const c = configParam(cfg);
      return ledger.submit(decodeWire(encoded, c.encoding), { skipPreflight: c.skipPreflight === true });
    },
    simulateTransaction: ([encoded, cfg]) => {
      const c = configParam(cfg);
      const accountsCfg = c.accounts as { addresses?: unknown[]; encoding?: AccountEncoding } | undefined;
      const addresses = accountsCfg?.addresses?.map((a) => pubkeyParam(a, 'account address'));
      const replace = c.replaceRecentBlockhash === true;
      if (replace && c.sigVerify === true) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      const sim = ledger.simulate(decodeWire(encoded, c.encoding), { sigVerify: c.sigVerify === true, replaceRecentBlockhash: replace, accounts: addresses });
      return withContext({
        err: sim.err,
        logs: sim.logs,
        accounts: sim.accounts ? sim.accounts.map((a) => encodeAccount(a, accountsCfg?.encoding ?? 'base64', undefined, decimalsOf)) : null,
        unitsConsumed: sim.unitsConsumed,
        returnData: null,
        ...(replace ? { replacementBlockhash: ledger.latestBlockhash() } : {}),
      });
    },
    getSignatureStatuses: ([signatures]) => {
      if (!Array.isArray(signatures)) throw invalidParams('signatures must be an array');
      if (signatures.length > 256) throw invalidParams('Too many inputs provided; max 256');
      return withContext(signatures.map((s) => (typeof s === 'string' ? signatureStatus(s) : null)));
    },
    getSignaturesForAddress: ([address, cfg]) => {
      const c = configParam(cfg);
      const limit = typeof c.limit === 'number' ? Math.min(c.limit, 1000) : 1000;
      let list = ledger.signaturesFor(pubkeyParam(address, 'address'));
      if (typeof c.before === 'string') {
        const i = list.findIndex((r) => r.signature === c.before);
        list = i >= 0 ? list.slice(i + 1) : list;
      }
      if (typeof c.until === 'string') {
        const i = list.findIndex((r) => r.signature === c.until);
        list = i >= 0 ? list.slice(0, i) : list;
      }
      return list.slice(0, limit).map((r) => ({ signature: r.signature, slot: r.slot, err: r.meta.err, memo: null, blockTime: r.blockTime, confirmationStatus: 'finalized' }));
    },
    getTransaction: ([signature, cfg]) => {
      if (typeof signature !== 'string') throw invalidParams('signature must be a string');
      // A string config is the deprecated form: the encoding itself.
      const c = typeof cfg === 'string' ? { encoding: cfg } : configParam(cfg);
      const r = ledger.getTransaction(signature);
      if (!r) return null;
      const encoding = (c.encoding ?? 'json') as 'json' | 'jsonParsed' | 'base64' | 'base58';
      if (!['json', 'jsonParsed', 'base64', 'base58'].includes(encoding)) throw invalidParams(`unsupported encoding: ${encoding}`);
      return encodeTransaction(r, { encoding, maxSupportedTransactionVersion: c.maxSupportedTransactionVersion as number | undefined });
    },
  };
  return { methods, signatureStatus };
}

function extractBlockhash(message: Uint8Array): Uint8Array {
  // Skip an optional version prefix, the 3-byte header and the compact-u16 key count + keys.
  let offset = message[0] & 0x80 ? 1 : 0;
  offset += 3;
  let count = 0;
  let shift = 0;
  for (;;) {
    const b = message[offset++];
    count |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
  }
  offset += count * 32;
  return message.subarray(offset, offset + 32);
}

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

function errorResponse(id: unknown, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id: id ?? null };
}

export async function startSolanaRpcServer(opts: { ledger: SvmLedger; log: Logger; host?: string; port?: number }): Promise<SolanaRpcServer> {
  const { ledger, log } = opts;
  const host = opts.host ?? '127.0.0.1';
  const { methods } = createSolanaRpcMethods(ledger);

  const call = (req: JsonRpcRequest) => {
    if (req === null || typeof req !== 'object' || typeof req.method !== 'string') return errorResponse(req?.id, -32600, 'Invalid request');
    const fn = Object.hasOwn(methods, req.method) ? methods[req.method] : undefined;
    if (!fn) return errorResponse(req.id, -32601, 'Method not found');
    const params = req.params === undefined ? [] : req.params;
    if (!Array.isArray(params)) return errorResponse(req.id, -32602, 'Invalid params: expected an array');
    try {
      return { jsonrpc: '2.0', result: fn(params), id: req.id ?? null };
    } catch (e) {
      if (e instanceof RpcFailure) return errorResponse(req.id, e.code, e.message, e.data);
      log.error('solana rpc method failed', { method: req.method, error: e });
      return errorResponse(req.id, -32603, `Internal error: ${(e as Error).message}`);
    }
  };

  const handleBody = (text: string): unknown => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return errorResponse(null, -32700, 'Parse error');
    }
    if (Array.isArray(body)) {
      if (body.length === 0) return errorResponse(null, -32600, 'Invalid request');
      return body.map((r) => call(r as JsonRpcRequest));
    }
    return call(body as JsonRpcRequest);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      const out = handleBody(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  };

  // Subscriptions: only signatureSubscribe is served (what transaction confirmation needs).
  const sockets = new Set<WebSocketConnection>();
  let nextSubscription = 1;
  const onWebSocket = (ws: WebSocketConnection) => {
    sockets.add(ws);
    const subscriptions = new Map<number, () => void>();
    ws.onClose(() => {
      sockets.delete(ws);
      for (const dispose of subscriptions.values()) dispose();
      subscriptions.clear();
    });
    const notifySignature = (id: number, slot: number, err: unknown) =>
      ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'signatureNotification', params: { result: { context: { slot }, value: { err } }, subscription: id } }));
    ws.onMessage((text) => {
      let req: JsonRpcRequest;
      try {
        req = JSON.parse(text) as JsonRpcRequest;
      } catch {
        ws.send(JSON.stringify(errorResponse(null, -32700, 'Parse error')));
        return;
      }
      if (req === null || typeof req !== 'object') return;
      // Notifications (no id), such as web3.js's heartbeat "ping", get no answer.
      if (req.id === undefined) return;
      const params = Array.isArray(req.params) ? req.params : [];
      if (req.method === 'signatureSubscribe') {
        const signature = params[0];
        if (typeof signature !== 'string') {
          ws.send(JSON.stringify(errorResponse(req.id, -32602, 'Invalid params: signature must be a string')));
          return;
        }
        const id = nextSubscription++;
        ws.send(JSON.stringify({ jsonrpc: '2.0', result: id, id: req.id }));
        const landed = ledger.getTransaction(signature);
        if (landed) {
          notifySignature(id, landed.slot, landed.meta.err);
          return;
        }
        const dispose = ledger.onTransaction((tx) => {
          if (tx.signature !== signature) return;
          subscriptions.get(id)?.();
          subscriptions.delete(id);
          notifySignature(id, tx.slot, tx.meta.err);
        });
        subscriptions.set(id, dispose);
        return;
      }
      if (req.method === 'signatureUnsubscribe') {
        const id = Number(params[0]);
        subscriptions.get(id)?.();
        subscriptions.delete(id);
        // Lenient: a one-shot subscription is already gone after its notification.
        ws.send(JSON.stringify({ jsonrpc: '2.0', result: true, id: req.id }));
        return;
      }
      ws.send(JSON.stringify(errorResponse(req.id, -32601, 'Method not found')));
    });
  };

  const makeServer = () => {
    const server = createServer(onRequest);
    server.on('upgrade', (req, socket, head) => {
      const ws = acceptWebSocket(req, socket, head);
      if (ws) onWebSocket(ws);
    });
    server.on('clientError', (_e, socket) => socket.destroy());
    return server;
  };

  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const closeServer = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  const requested = opts.port ?? 0;
  let http: Server | null = null;
  let ws: Server | null = null;
  for (let attempt = 0; attempt < 20 && !ws; attempt++) {
    http = makeServer();
    const port = await listen(http, requested);
    const second = makeServer();
    try {
      await listen(second, port + 1);
      ws = second;
    } catch (e) {
      await closeServer(http);
      http = null;
      if (requested !== 0) throw new Error(`solana devnet: port ${port + 1} (WebSocket, HTTP port + 1) is busy: ${(e as Error).message}`);
    }
  }
  if (!http || !ws) throw new Error('solana devnet: found no free pair of adjacent ports');
  const port = (http.address() as AddressInfo).port;
  const httpServer = http;
  const wsServer = ws;
  log.debug('solana rpc listening', { port });

  return {
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port + 1}`,
    port,
    async close() {
      for (const s of sockets) s.close();
      await Promise.all([closeServer(httpServer), closeServer(wsServer)]);
    },
  };
}
