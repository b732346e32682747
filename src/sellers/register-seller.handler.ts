/**
 * POST /v1/_seller/register, shape A (several chain wallets, each signing `register`) or shape
 * B (one wallet). Free. What a signature vouches for (issue 20, item 3): shape B signs the slug
 * (the specification's payload) and registers exactly its one wallet, paid on its own chain.
 * Shape A signs registerBindingPayload (slug, wallet map, primary wallet, payout chain); the
 * slug alone is accepted there only when the request registers exactly what shape B would
 * from that signature, so a lifted shape-B signature can never add wallets, another primary,
 * or another payout chain or destination. A wallet owns at most one slug across shapes and chains
 * (seller_wallet_claim), a slug has one owner (seller.slug unique); both are decided by unique
 * keys in one transaction, so concurrent registrations cannot both win.
 */
import { getAddress } from 'viem';
import { PAYOUT_CHAINS, type PayoutChain } from '../chains/payout-sender.ts';
import { AppError } from '../http/app-error.ts';
import type { Handler } from '../http/server.ts';
import { defaultPayoutChain, registerBindingPayload, registerPayload, shapeBChain, verifyWalletSignature, walletKey, walletKind } from '../http/wallet-signature.ts';
import { checkTimestamp, consumeSignatures, countingRefusals, signatureUseKey, type SignatureDeps } from '../http/with-seller-signature.ts';
import { sqlOf } from '../db/orm.ts';
import { claimWallet, findSellerByWallet, insertSeller, insertSellerWallet, sellerJson } from './seller-store.ts';

const CHAIN_ORDER = PAYOUT_CHAINS;

export interface RegisterSellerDeps extends SignatureDeps {
  /** The chains this deployment can pay on (configuredPayoutChains): payout_chain must be one. */
  payoutChains: readonly PayoutChain[];
  /** Called once a registration names its payout chain (the devnet starts that chain's node then). */
  onPayoutChain?: (chain: PayoutChain) => void;
}

interface RegisterBody {
  slug: string;
  // shape A
  primary_wallet?: string;
  wallets?: Record<string, string>;
  signatures?: Record<string, string>;
  ts?: number;
  payout_chain?: string;
  // shape B
  wallet?: string;
  signature?: string;
  timestamp?: number;
}

interface Registration {
  shape: 'A' | 'B';
  slug: string;
  primary: string;
  /** chain -> address as stored (EVM checksummed). */
  wallets: Record<string, string>;
  signed: { wallet: string; signature: string; chain: string }[];
  timestamp: number;
  payoutChain: PayoutChain;
}

const invalidInput = (path: string, message: string) => new AppError('invalid_input', 400, `${path} ${message}.`, { issues: [{ path, message }] });
const invalidWallet = (path: string) =>
  new AppError('invalid_wallet', 400, 'The wallet is neither an EVM address (0x + 40 hex) nor a Solana address (base58 of 32 bytes).', { issues: [{ path, message: 'is not a wallet address' }] });

const isOneOf = (chain: string, chains: readonly PayoutChain[]): chain is PayoutChain => (chains as readonly string[]).includes(chain);

const stored = (address: string) => (walletKind(address) === 'evm' ? getAddress(address.toLowerCase()) : address);

function readRegistration(b: RegisterBody, payoutChains: readonly PayoutChain[]): Registration {
  if (b.wallet !== undefined) {
    if (!walletKind(b.wallet)) throw invalidWallet('body.wallet');
    const chain = shapeBChain(b.wallet)!;
    return { shape: 'B', slug: b.slug, primary: stored(b.wallet), wallets: { [chain]: stored(b.wallet) }, signed: [{ wallet: b.wallet, signature: b.signature!, chain }], timestamp: b.timestamp!, payoutChain: chain };
  }
  const wallets = b.wallets!;
  const signatures = b.signatures!;
  for (const [chain, address] of Object.entries(wallets)) if (!walletKind(address)) throw invalidWallet(`body.wallets.${chain}`);
  if (!walletKind(b.primary_wallet!)) throw invalidWallet('body.primary_wallet');
  const missing = Object.keys(wallets).filter((c) => !(c in signatures));
  if (missing.length) throw invalidInput(`body.signatures.${missing[0]}`, 'is required: every wallet of wallets signs register');
  const extra = Object.keys(signatures).filter((c) => !(c in wallets));
  if (extra.length) throw invalidInput(`body.signatures.${extra[0]}`, 'has no wallet in wallets');
  const primaryChain = defaultPayoutChain(wallets, b.primary_wallet!);
  if (!primaryChain) throw invalidInput('body.primary_wallet', 'must be one of wallets');
  const payoutChain = b.payout_chain ?? primaryChain;
  if (wallets[payoutChain] === undefined) throw invalidInput('body.payout_chain', `has no wallet in wallets (${Object.keys(wallets).join(', ')})`);
  // A seller could otherwise register for payouts this deployment can never send.
  if (!isOneOf(payoutChain, payoutChains)) {
    throw invalidInput('body.payout_chain', `is ${payoutChain}, which this service does not pay out on (payout chains here: ${payoutChains.join(', ')})`);
  }
  return {
    shape: 'A',
    slug: b.slug,
    primary: stored(b.primary_wallet!),
    wallets: Object.fromEntries(CHAIN_ORDER.filter((c) => wallets[c] !== undefined).map((c) => [c, stored(wallets[c])])),
    signed: CHAIN_ORDER.filter((c) => wallets[c] !== undefined).map((c) => ({ wallet: wallets[c], signature: signatures[c], chain: c })),
    timestamp: b.ts!,
    payoutChain,
  };
}

/**
 * The payloads a wallet of this registration may have signed. Shape A's slug-only payload is
 * the shape-B one: accepted only where the outcome is shape B's for that signature (the one
 * wallet, under the chain shape B records it on, is primary and payout destination on that
 * chain), so accepting it grants nothing the signer's own shape-B request would not. The same
 * wallet under another chain key (payout on polygon instead of base) is not shape B's outcome:
 * a wallet that exists on one chain only (a contract wallet) would lose those payouts.
 */
function acceptedPayloads(reg: Registration): string[] {
  const slugOnly = registerPayload(reg.slug);
  if (reg.shape === 'B') return [slugOnly];
  const bound = registerBindingPayload({ slug: reg.slug, wallets: reg.wallets, primary_wallet: reg.primary, payout_chain: reg.payoutChain });
  const chains = Object.keys(reg.wallets);
  const asShapeB = chains.length === 1 && chains[0] === shapeBChain(reg.primary) && reg.payoutChain === chains[0];
  return asShapeB ? [bound, slugOnly] : [bound];
}

const invalidSignature = (reg: Registration, s: Registration['signed'][number], payloads: string[]) =>
  new AppError('invalid_signature', 401, `The signature ${reg.shape === 'A' ? `of body.signatures.${s.chain} ` : ''}does not recover to ${s.wallet} over the register payload.`, {
    hint:
      reg.shape === 'B'
        ? 'Sign action register with payloadHash = keccak-256 of the slug.'
        : `Every wallet of wallets signs action register with payloadHash = keccak-256 of the UTF-8 text ${payloads[0]}`,
  });

const CONFLICT = new Error('registration conflict');

const walletTaken = (wallet: string, slug: string) =>
  new AppError('wallet_already_registered', 409, `The wallet ${wallet} already owns the slug ${slug}.`, { hint: 'A wallet owns at most one slug.' });
const slugTaken = (slug: string) => new AppError('slug_taken', 409, `The slug ${slug} belongs to another wallet.`, { hint: 'Choose another slug.' });

export function registerSellerHandler(deps: RegisterSellerDeps): Handler {
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  return async (ctx) => {
    const reg = readRegistration(ctx.body as RegisterBody, deps.payoutChains);
    const payloads = acceptedPayloads(reg);
    const release = await countingRefusals(deps.onRefusal, async () => {
      checkTimestamp(reg.timestamp, now());
      const uses: { key: string; wallet: string; action: string }[] = [];
      for (const s of reg.signed) {
        let signed: string | undefined;
        for (const payload of payloads) {
          if (await verifyWalletSignature(deps.serviceName, { wallet: s.wallet, action: 'register', payload, timestamp: reg.timestamp, signature: s.signature })) {
            signed = payload;
            break;
          }
        }
        if (signed === undefined) throw invalidSignature(reg, s, payloads);
        // Keyed by the message signed: a shape-B signature replayed in shape A is the same use.
        uses.push({ key: signatureUseKey(s.wallet, 'register', signed, reg.timestamp), wallet: s.wallet, action: 'register' });
      }
      return consumeSignatures(deps.orm, uses);
    });
    try {
      const em = sqlOf(deps.orm);
      const keys = [...new Set(Object.values(reg.wallets).map(walletKey))];
      const classify = async () => {
        for (const k of keys) {
          const owner = await findSellerByWallet(em, k);
          if (owner) return walletTaken(Object.values(reg.wallets).find((w) => walletKey(w) === k)!, owner.slug);
        }
        return slugTaken(reg.slug);
      };
      // Classified after the rollback: the embedded database has a single connection.
      const seller = await em.transactional(async (tx) => {
        const row = await insertSeller(tx, { wallet: reg.primary, walletKey: walletKey(reg.primary), slug: reg.slug, payoutChain: reg.payoutChain });
        if (!row) throw CONFLICT;
        for (const k of keys) {
          if (!(await claimWallet(tx, k, row.id))) throw CONFLICT;
        }
        for (const [chain, address] of Object.entries(reg.wallets)) {
          await insertSellerWallet(tx, row.id, { chain, address, addressKey: walletKey(address) });
        }
        return row;
      }).catch(async (e) => {
        throw e === CONFLICT ? await classify() : e;
      });
      deps.onPayoutChain?.(reg.payoutChain);
      return { status: 201, body: sellerJson(seller, reg.wallets) };
    } catch (e) {
      await release().catch(() => undefined);
      throw e;
    }
  };
}
