// The seller console's page logic: connect an EIP-1193 wallet, then read and act through the
// public API (api.js). Everything the API returns is put on the page with textContent or as
// attribute values, never as markup. Money is atomic USDC in BigInt (formatUsdc).
import { ApiError, createApi, formatUsdc, parseUsdc } from './api.js';
import { barChart } from './chart.js';

const $ = (id) => document.getElementById(id);
const serviceName = document.body.dataset.service;
let api = null;
/** The endpoints as last listed (update signs the endpoint as it will be). */
let endpoints = [];
let refreshTimer = null;

function say(text, kind = '') {
  const s = $('status');
  s.textContent = text;
  s.className = kind;
}

function explain(e) {
  if (e instanceof ApiError) return `${e.code ?? `HTTP ${e.status}`}: ${e.message}${e.hint ? ` (${e.hint})` : ''}`;
  // EIP-1193: 4001 is the user refusing to sign.
  if (e && typeof e === 'object' && e.code === 4001) return 'The wallet refused to sign.';
  return e instanceof Error ? e.message : String(e);
}

/** Runs an action with its button disabled; reports the API's refusal on the page. */
async function act(button, what, run) {
  if (button) button.disabled = true;
  say(`${what}…`);
  try {
    const result = await run();
    return result;
  } catch (e) {
    say(`${what} failed: ${explain(e)}`, 'error');
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

const cell = (text, className) => {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
};
const button = (text, onClick, className = 'secondary') => {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.className = className;
  b.addEventListener('click', () => onClick(b));
  return b;
};
/** A destructive button asks once more by changing its own label (no dialogs). */
const confirmButton = (text, onConfirm) =>
  button(text, (b) => {
    if (b.dataset.armed === '1') return onConfirm(b);
    b.dataset.armed = '1';
    b.textContent = `Confirm ${text.toLowerCase()}`;
  });
const when = (unix) => (unix ? new Date(Number(unix) * 1000).toISOString().replace('T', ' ').replace(/\.000Z$/, ' UTC') : '');

async function connect() {
  const provider = window.ethereum;
  if (!provider || typeof provider.request !== 'function') {
    say('No EVM browser wallet found (window.ethereum). Install one such as MetaMask, or use the paycall CLI. Solana wallets are not supported here yet.', 'error');
    return;
  }
  const accounts = await act($('connect'), 'Connecting the wallet', () => provider.request({ method: 'eth_requestAccounts' }));
  if (!accounts?.length) return;
  const wallet = accounts[0];
  api = createApi({ provider, serviceName, wallet });
  $('wallet').textContent = wallet;
  $('connect').textContent = 'Reconnect';
  $('main').hidden = false;
  provider.on?.('accountsChanged', () => location.reload());
  await refresh();
}

/** Reads everything the console shows. A wallet with no seller gets the registration form. */
async function refresh() {
  let listed;
  try {
    say('Reading your endpoints…');
    listed = await api.endpoints();
  } catch (e) {
    // seller_not_found is the one expected refusal: this wallet has not registered yet.
    if (e instanceof ApiError && e.code === 'seller_not_found') {
      showSeller(false);
      say('This wallet is not a seller yet: choose a slug to register.');
    } else say(`Reading your endpoints failed: ${explain(e)}`, 'error');
    return;
  }
  showSeller(true);
  endpoints = listed.endpoints;
  renderEndpoints();
  const account = await act(null, 'Reading the account', () => api.account());
  if (account) renderAccount(account);
  const stats = await act(null, 'Reading statistics', () => api.stats());
  if (stats) renderStats(stats);
  const errors = await act(null, 'Reading error counts', () => api.errors());
  if (errors) renderErrors(errors);
  const keys = await act(null, 'Reading API keys', () => api.keys());
  if (keys) renderKeys(keys.keys);
  if (account && stats && errors && keys) say('Up to date.', 'ok');
  scheduleRefresh();
}

/** While an endpoint waits for its probes, look again (the read signatures are reused meanwhile). */
function scheduleRefresh() {
  clearTimeout(refreshTimer);
  if (endpoints.some((e) => e.status === 'pending')) {
    refreshTimer = setTimeout(async () => {
      const listed = await act(null, 'Reading your endpoints', () => api.endpoints());
      if (!listed) return;
      endpoints = listed.endpoints;
      renderEndpoints();
      say('Up to date.', 'ok');
      scheduleRefresh();
    }, 3000);
  }
}

function showSeller(isSeller) {
  $('register-section').hidden = isSeller;
  for (const id of ['account-section', 'endpoints-section', 'charts-section', 'keys-section']) $(id).hidden = !isSeller;
}

function renderAccount(a) {
  $('payout-chain').textContent = a.payout_chain;
  $('earned').textContent = formatUsdc(a.earned_atomic);
  $('withdrawable').textContent = formatUsdc(a.withdrawable_atomic);
  $('settled').textContent = formatUsdc(a.settled_atomic ?? '0');
  const body = $('payouts').tBodies[0];
  body.replaceChildren(
    ...(a.payouts ?? []).map((p) => {
      const tr = document.createElement('tr');
      tr.append(cell(String(p.id)), cell(p.chain), cell(formatUsdc(p.amount_atomic), 'num'), cell(p.status + (p.error ? ` (${p.error})` : ''), `status-${p.status}`), cell(p.tx ?? '', 'mono'));
      return tr;
    }),
  );
}

function probeText(p) {
  if (!p) return 'not probed yet';
  const parts = [p.ok ? 'ok' : 'failed', p.status_code !== null && p.status_code !== undefined ? String(p.status_code) : '', p.latency_ms !== null && p.latency_ms !== undefined ? `${p.latency_ms} ms` : '', p.region ?? '', p.error ?? '', when(p.at)];
  return parts.filter(Boolean).join(' · ');
}

function renderEndpoints() {
  const body = $('endpoints').tBodies[0];
  body.replaceChildren(
    ...endpoints.map((e) => {
      const tr = document.createElement('tr');
      tr.dataset.id = String(e.id);
      const actions = document.createElement('td');
      const price = document.createElement('input');
      price.value = formatUsdc(e.atomic_price);
      price.inputMode = 'decimal';
      price.size = 8;
      price.setAttribute('aria-label', `New price of ${e.path} in USDC`);
      actions.append(
        price,
        button('Set price', async (b) => {
          const atomic = parseUsdc(price.value);
          if (atomic === null) return say('The price is a USDC amount with at most 6 decimals, e.g. 0.02.', 'error');
          const after = { upstream_url: e.upstream_url, atomic_price: atomic, unit: e.unit, desc: e.desc, mode: e.mode };
          const updated = await act(b, `Updating ${e.path}`, () => api.update(e.id, { atomic_price: atomic }, after));
          if (updated) await refresh();
        }),
        confirmButton('Delete', async (b) => {
          const deleted = await act(b, `Deleting ${e.path}`, () => api.remove(e.id));
          if (deleted) await refresh();
        }),
      );
      tr.append(cell(e.path, 'mono'), cell(formatUsdc(e.atomic_price), 'num'), cell(e.mode), cell(e.status, `status-${e.status}`), cell(probeText(e.last_probe)), actions);
      return tr;
    }),
  );
}

function renderKeys(keys) {
  const body = $('keys').tBodies[0];
  body.replaceChildren(
    ...keys.map((k) => {
      const tr = document.createElement('tr');
      tr.dataset.id = String(k.id);
      const state = k.revoked_at ? `revoked ${when(k.revoked_at)}` : k.expires_at && k.expires_at * 1000 < Date.now() ? `expired ${when(k.expires_at)}` : 'active';
      const actions = document.createElement('td');
      if (!k.revoked_at)
        actions.append(
          confirmButton('Revoke', async (b) => {
            const revoked = await act(b, `Revoking key ${k.id}`, () => api.revokeKey(k.id));
            if (revoked) {
              // A revoked key's secret is of no use: stop showing it.
              if ($('new-key').dataset.id === String(k.id)) {
                $('new-key').hidden = true;
                $('new-key').textContent = '';
              }
              const listed = await act(null, 'Reading API keys', () => api.keys());
              if (listed) renderKeys(listed.keys);
              say(`Key ${k.id} revoked.`, 'ok');
            }
          }),
        );
      tr.append(cell(String(k.id)), cell(k.key_prefix, 'mono'), cell(k.label ?? ''), cell(k.scopes.join(', ')), cell(state, k.revoked_at ? 'status-failed' : 'status-active'), actions);
      return tr;
    }),
  );
}

function renderStats(s) {
  $('slug').textContent = s.slug;
  const days = s.daily ?? [];
  const label = (ts) => new Date(ts * 1000).toISOString().slice(5, 10);
  barChart($('chart-earnings'), { points: days.map((d) => ({ label: label(d.day), values: [BigInt(d.earned_atomic)] })), series: ['net earned'], format: formatUsdc, empty: 'No paid calls yet.' });
  barChart($('chart-calls'), { points: days.map((d) => ({ label: label(d.day), values: [BigInt(d.calls), BigInt(d.undelivered_calls)] })), series: ['calls', 'undelivered'], empty: 'No paid calls yet.' });
}

function renderErrors(rows) {
  // Newest first from the API; the chart reads left to right, oldest first, one bar per hour with errors.
  const byHour = new Map();
  for (const r of rows) byHour.set(r.ts, (byHour.get(r.ts) ?? 0n) + BigInt(r.count));
  const points = [...byHour.entries()].sort((a, b) => a[0] - b[0]).map(([ts, n]) => ({ label: new Date(ts * 1000).toISOString().slice(11, 16), values: [n] }));
  barChart($('chart-errors'), { points, series: ['errors'], empty: 'No errors in the last 7 days.' });
}

$('connect').addEventListener('click', () => connect());
$('refresh').addEventListener('click', () => refresh());

$('register-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const seller = await act(ev.submitter, 'Registering', () => api.register(String(f.get('slug')), String(f.get('payout_chain'))));
  if (seller) {
    say(`Registered as ${seller.slug}.`, 'ok');
    await refresh();
  }
});

$('publish-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const atomic = parseUsdc(String(f.get('price')));
  if (atomic === null) return say('The price is a USDC amount with at most 6 decimals, e.g. 0.02.', 'error');
  const e = { path_suffix: String(f.get('path_suffix')), upstream_url: String(f.get('upstream_url')), atomic_price: atomic, unit: String(f.get('unit')), desc: String(f.get('desc')), mode: String(f.get('mode')) };
  // The API probes the upstream before it answers: its refusal says what came back.
  const created = await act(ev.submitter, 'Publishing (the service probes the upstream)', () => api.publish(e));
  if (!created) return;
  ev.target.reset();
  await refresh();
  say(`Published ${created.path}: ${created.status}, probe ${probeText(created.last_probe)}.`, 'ok');
});

$('issue-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const label = String(f.get('label') ?? '').trim() || null;
  const scopes = f.getAll('scope').map(String);
  if (!scopes.length) return say('Choose at least one scope.', 'error');
  const issued = await act(ev.submitter, 'Issuing a key', () => api.issueKey(label, scopes));
  if (!issued) return;
  const shown = $('new-key');
  shown.textContent = `${issued.api_key} (${issued.warning})`;
  shown.dataset.id = String(issued.id);
  shown.hidden = false;
  ev.target.reset();
  const listed = await act(null, 'Reading API keys', () => api.keys());
  if (listed) renderKeys(listed.keys);
  say(`Key ${issued.id} issued.`, 'ok');
});

$('payout').addEventListener('click', async () => {
  const payout = await act($('payout'), 'Requesting a payout', () => api.payout());
  if (!payout) return;
  const account = await act(null, 'Reading the account', () => api.account());
  if (account) renderAccount(account);
  // Said last: the reads above announce themselves on the same line.
  say(`Payout ${payout.id} of ${formatUsdc(payout.amount_atomic)} USDC on ${payout.chain}: ${payout.status}.`, 'ok');
});
