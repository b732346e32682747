/** Configuration: defaults, validation, and the one-line refusal of the real process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { loadConfig, ConfigError } from '../src/config.ts';
import { configuredPayoutChains } from '../src/chains/create-payout-senders.ts';

const refuses = (env: Record<string, string>, variable: string, pattern: RegExp) => {
  assert.throws(
    () => loadConfig(env),
    (e: unknown) => e instanceof ConfigError && e.variable === variable && pattern.test(e.message),
  );
};

test('defaults: devnet profile, 127.0.0.1:4020, PGlite, service name paycall', () => {
  const c = loadConfig({});
  assert.equal(c.profile, 'devnet');
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 4020);
  assert.equal(c.publicBaseUrl, 'http://127.0.0.1:4020');
  assert.equal(c.serviceName, 'paycall');
  assert.equal(c.databaseUrl, null);
  assert.equal(c.pgliteDir, '.data/pglite');
  assert.equal(c.chains, null);
});

test('bad values name the variable and the problem', () => {
  refuses({ PORT: 'abc' }, 'PORT', /integer/);
  refuses({ PORT: '70000' }, 'PORT', /between 0 and 65535/);
  refuses({ PAYCALL_PROFILE: 'staging' }, 'PAYCALL_PROFILE', /devnet, production/);
  refuses({ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /postgres/);
  refuses({ DATABASE_URL: 'not a url' }, 'DATABASE_URL', /URL/);
  refuses({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of/);
  refuses({ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL', /http/);
});

test('production requires a database and every chain setting', () => {
  refuses({ PAYCALL_PROFILE: 'production' }, 'DATABASE_URL', /required/);
  refuses({ PAYCALL_PROFILE: 'production', DATABASE_URL: 'postgres://h/db' }, 'BASE_RPC_URL', /required/);
  refuses({ PAYCALL_PROFILE: 'production', DATABASE_URL: 'postgres://h/db', BASE_RPC_URL: 'https://rpc', BASE_USDC: '0x12' }, 'BASE_USDC', /40 hex/);
});

const productionEnv = (() => {
  const evm = '0x' + 'a'.repeat(40);
  const key = '0x' + '1'.repeat(64);
  const b58 = 'EPjFWdd5AufqSSqeM2qFJxbYHD4E8Hj4FQ2cY4wZ4yz1';
  return {
    PAYCALL_PROFILE: 'production', DATABASE_URL: 'postgres://h/db',
    BASE_RPC_URL: 'https://base', BASE_USDC: evm, BASE_PAY_TO: evm,
    POLYGON_RPC_URL: 'https://polygon', POLYGON_USDC: evm, POLYGON_PAY_TO: evm,
    SOLANA_RPC_URL: 'https://solana', SOLANA_USDC_MINT: b58, SOLANA_PAY_TO: b58,
    EVM_RELAYER_KEY: key, EVM_TREASURY_KEY: key, SOLANA_FEE_PAYER_KEY: b58, SOLANA_TREASURY_KEY: b58,
    FORWARD_SIGNING_KEY: Buffer.alloc(32, 9).toString('base64'),
    API_KEY_SECRET: 'k'.repeat(32),
  };
})();

test('production accepts a complete configuration', () => {
  const c = loadConfig(productionEnv);
  assert.equal(c.chains?.base.chainId, 8453);
  assert.equal(c.chains?.polygon.chainId, 137);
  // Payout-only chains are optional: none configured, none payable.
  assert.deepEqual(c.chains?.payoutChains, {});
  assert.deepEqual(configuredPayoutChains(c.chains), ['base', 'polygon', 'solana']);
});

test('production payout-only chains: an RPC URL each, native USDC and the EVM treasury by default', () => {
  const own = '0x' + '2'.repeat(64);
  const c = loadConfig({ ...productionEnv, ARBITRUM_RPC_URL: 'https://arb', AVALANCHE_RPC_URL: 'https://avax', AVALANCHE_USDC: '0x' + 'b'.repeat(40), AVALANCHE_TREASURY_KEY: own });
  assert.deepEqual(c.chains?.payoutChains, {
    arbitrum: { chainId: 42161, usdc: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', rpcUrl: 'https://arb' },
    avalanche: { chainId: 43114, usdc: '0x' + 'b'.repeat(40), rpcUrl: 'https://avax', treasuryKey: own },
  });
  assert.deepEqual(configuredPayoutChains(c.chains), ['base', 'polygon', 'arbitrum', 'avalanche', 'solana']);
  refuses({ ...productionEnv, OPTIMISM_USDC: '0x' + 'b'.repeat(40) }, 'OPTIMISM_USDC', /OPTIMISM_RPC_URL is not/);
  refuses({ ...productionEnv, OPTIMISM_RPC_URL: 'ftp://op' }, 'OPTIMISM_RPC_URL', /http/);
  refuses({ ...productionEnv, ARBITRUM_RPC_URL: 'https://arb', ARBITRUM_TREASURY_KEY: '0x12' }, 'ARBITRUM_TREASURY_KEY', /64 hex/);
});

test('the process stops with one line naming the variable', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, PORT: 'abc' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 1);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /PORT: must be an integer, got "abc"/);
});

test('TRUSTED_PROXIES: IPs and CIDR ranges, none by default; anything else is one line naming it', () => {
  assert.deepEqual(loadConfig({}).proxy.trustedProxies, []);
  const list = loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7,2001:db8::/32 , ::1' }).proxy.trustedProxies;
  assert.deepEqual(list.map(([a, bits]) => `${a.toString()}/${bits}`), ['10.0.0.0/8', '192.0.2.7/32', '2001:db8::/32', '::1/128']);
  for (const bad of ['10.0.0.0/33', 'lb.internal', '10.1', '0x0a000001', '10.0.0.0/8;1.2.3.4', '::g']) refuses({ TRUSTED_PROXIES: bad }, 'TRUSTED_PROXIES', /is not an IP address or CIDR range/);
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 1);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^paycall: configuration error: TRUSTED_PROXIES: "proxy.internal" is not an IP address or CIDR range/);
});

test('the operator listener: loopback and 9464 by default; METRICS_PORT validated and never the API port', () => {
  const c = loadConfig({});
  assert.deepEqual(c.metrics, { host: '127.0.0.1', port: 9464 });
  assert.deepEqual(loadConfig({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '9100' }).metrics, { host: '0.0.0.0', port: 9100 });
  assert.equal(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metrics.port, 0, 'both free ports (tests)');
  refuses({ METRICS_PORT: 'x' }, 'METRICS_PORT', /integer/);
  refuses({ METRICS_PORT: '70000' }, 'METRICS_PORT', /between 0 and 65535/);
  refuses({ PORT: '9464' }, 'METRICS_PORT', /must differ from PORT/);
  refuses({ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT', /must differ from PORT/);
});
