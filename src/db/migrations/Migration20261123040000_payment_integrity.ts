import { Migration } from '@mikro-orm/migrations';

/**
 * Payment integrity: a receipt counts its run attempts and remembers who it holds money for
 * while it is being settled (in-flight EIP-3009 authorizations are counted against the payer's
 * balance); a quote keeps its recent issue times, so a transfer pays only for a request quoted
 * before it was mined.
 */
export class Migration20261123040000_payment_integrity extends Migration {
  override name = 'Migration20261123040000_payment_integrity';

  override up(): void | Promise<void> {
    this.addSql(`alter table "consumed_receipt" add column "attempts" int not null default 0, add column "payer" varchar(64) null, add column "amount" numeric(78,0) null;`);
    this.addSql(`create index "consumed_receipt_in_flight_idx" on "consumed_receipt" ("payer") where "state" = 'running' and "payment_id" is null and "payer" is not null;`);
    this.addSql(`alter table "quote" add column "quoted_times" timestamptz[] not null default '{}';`);
    this.addSql(`update "quote" set "quoted_times" = array["created_at"];`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "consumed_receipt_in_flight_idx";`);
    this.addSql(`alter table "consumed_receipt" drop column "attempts", drop column "payer", drop column "amount";`);
    this.addSql(`alter table "quote" drop column "quoted_times";`);
  }
}
