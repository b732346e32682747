import { Migration } from '@mikro-orm/migrations';

/**
 * The x402 payment-identifier extension (issue 23, item 4): each id a buyer sent, bound to the
 * first payload (SHA-256 of its canonical JSON) and request fingerprint it came with.
 */
export class Migration20261125140000_payment_identifier extends Migration {
  override name = 'Migration20261125140000_payment_identifier';

  override up(): void | Promise<void> {
    this.addSql(`create table "payment_identifier" ("id" varchar(128) not null, "payload_sha256" bytea not null, "fingerprint" varchar(64) not null, "created_at" timestamptz not null default now(), constraint "payment_identifier_pkey" primary key ("id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payment_identifier";`);
  }
}
