import { Migration } from '@mikro-orm/migrations';

/**
 * API keys and accounts: a paid call made with a `pay` key records the key's wallet as the
 * buyer beside the paying address (`buyer_wallet`, the wallet's lookup key: EVM lower-cased);
 * the account sums a buyer's payments by payer case-insensitively for EVM addresses, hence the
 * index on lower(payer). api_key.key_hash now holds an HMAC-SHA-256 (same width as before).
 */
export class Migration20261123090000_api_keys extends Migration {
  override name = 'Migration20261123090000_api_keys';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payment" add column "buyer_wallet" varchar(64) null;`);
    this.addSql(`create index "payment_buyer_wallet_idx" on "payment" ("buyer_wallet") where "buyer_wallet" is not null;`);
    this.addSql(`create index "payment_payer_lower_idx" on "payment" (lower("payer"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "payment_payer_lower_idx";`);
    this.addSql(`drop index if exists "payment_buyer_wallet_idx";`);
    this.addSql(`alter table "payment" drop column "buyer_wallet";`);
  }
}
