/**
 * Seeds the Solana devnet state directly with account writes (what LiteSVM's setAccount is
 * for): the USDC mint at its mainnet address, a second "fake USDC" mint for wrong-asset tests,
 * SOL for every actor and associated token accounts with USDC for buyers and the treasury.
 */
import { ACCOUNT_SIZE, AccountLayout, getAssociatedTokenAddressSync, MINT_SIZE, MintLayout } from '@solana/spl-token';
import { PublicKey, SystemProgram } from '@solana/web3.js';
import { TOKEN_PROGRAM, type SvmLedger } from './svm-ledger.ts';

export interface SolanaSeed {
  usdcMint: string;
  fakeMint: string;
  mintAuthority: PublicKey;
  /** Wallets that get SOL only. */
  solOnly: PublicKey[];
  /** Wallets that get SOL, a USDC account and a fake-USDC account, each holding `usdcEach`. */
  holders: PublicKey[];
  lamportsEach: bigint;
  usdcEach: bigint;
  decimals: number;
}

export function seedSolana(ledger: SvmLedger, seed: SolanaSeed): void {
  const mint = new PublicKey(seed.usdcMint);
  const fake = new PublicKey(seed.fakeMint);
  const tokenProgram = new PublicKey(TOKEN_PROGRAM);
  const supply = seed.usdcEach * BigInt(seed.holders.length);

  const writeMint = (address: PublicKey) => {
    const data = Buffer.alloc(MINT_SIZE);
    MintLayout.encode(
      {
        mintAuthorityOption: 1,
        mintAuthority: seed.mintAuthority,
        supply,
        decimals: seed.decimals,
        isInitialized: true,
        freezeAuthorityOption: 0,
        freezeAuthority: PublicKey.default,
      },
      data,
    );
    ledger.setAccount(address.toBase58(), { lamports: ledger.minimumBalanceForRentExemption(MINT_SIZE), owner: TOKEN_PROGRAM, data, executable: false });
  };
  const writeTokenAccount = (mintKey: PublicKey, owner: PublicKey, amount: bigint) => {
    const data = Buffer.alloc(ACCOUNT_SIZE);
    AccountLayout.encode(
      {
        mint: mintKey,
        owner,
        amount,
        delegateOption: 0,
        delegate: PublicKey.default,
        state: 1,
        isNativeOption: 0,
        isNative: 0n,
        delegatedAmount: 0n,
        closeAuthorityOption: 0,
        closeAuthority: PublicKey.default,
      },
      data,
    );
    const ata = getAssociatedTokenAddressSync(mintKey, owner, true, tokenProgram);
    ledger.setAccount(ata.toBase58(), { lamports: ledger.minimumBalanceForRentExemption(ACCOUNT_SIZE), owner: TOKEN_PROGRAM, data, executable: false });
  };
  const fund = (wallet: PublicKey) =>
    ledger.setAccount(wallet.toBase58(), { lamports: Number(seed.lamportsEach), owner: SystemProgram.programId.toBase58(), data: new Uint8Array(0), executable: false });

  writeMint(mint);
  writeMint(fake);
  for (const w of [...seed.solOnly, seed.mintAuthority]) fund(w);
  for (const h of seed.holders) {
    fund(h);
    writeTokenAccount(mint, h, seed.usdcEach);
    writeTokenAccount(fake, h, seed.usdcEach);
  }
}
