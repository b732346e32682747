/** Configuration: defaults, validation, and the one-line refusal of the real process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { loadConfig, ConfigError } from '../src/config.ts';

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

test('production accepts a complete configuration', () => {
  const evm = '0x' + 'a'.repeat(40);
  const key = '0x' + '1'.repeat(64);
  const b58 = 'EPjFWdd5AufqSSqeM2qFJxbYHD4E8Hj4FQ2cY4wZ4yz1';
  const c = loadConfig({
    PAYCALL_PROFILE: 'production', DATABASE_URL: 'postgres://h/db',
    BASE_RPC_URL: 'https://base', BASE_USDC: evm, BASE_PAY_TO: evm,
    POLYGON_RPC_URL: 'https://polygon', POLYGON_USDC: evm, POLYGON_PAY_TO: evm,
    SOLANA_RPC_URL: 'https://solana', SOLANA_USDC_MINT: b58, SOLANA_PAY_TO: b58,
    EVM_RELAYER_KEY: key, EVM_TREASURY_KEY: key, SOLANA_FEE_PAYER_KEY: b58, SOLANA_TREASURY_KEY: b58,
    FORWARD_SIGNING_KEY: Buffer.alloc(32, 9).toString('base64'),
    API_KEY_SECRET: 'k'.repeat(32),
  });
  assert.equal(c.chains?.base.chainId, 8453);
  assert.equal(c.chains?.polygon.chainId, 137);
});

test('the process stops with one line naming the variable', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, PORT: 'abc' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 1);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /PORT: must be an integer, got "abc"/);
});
