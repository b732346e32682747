import { Migration } from '@mikro-orm/migrations';

/**
 * Settlement: the payout row is the intent and the job. A payment row is claimed by exactly one
 * payout (payout_claim) when the payout is written; payout_id (the settlement reference the
 * account reads) is set only once the payout's transaction is confirmed. settlement_run makes
 * one instance the day's runner (its primary key) and lets another take over a run whose
 * instance died (lease_until).
 */
export class Migration20261123091000_settlement extends Migration {

  override name = 'Migration20261123091000_settlement';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payment" add column "payout_claim" bigint null;`);
    // Hand-written: the settlement groups the unclaimed rows of sellers, and marks a payout's rows.
    this.addSql(`create index "payment_unclaimed_idx" on "payment" ("seller_id", "created_at") where "payout_claim" is null and "seller_id" is not null;`);
    this.addSql(`create index "payment_payout_claim_idx" on "payment" ("payout_claim") where "payout_claim" is not null;`);

    this.addSql(`alter table "payout" add column "raw" text null, add column "valid_until" varchar(32) null, add column "attempts" int not null default 0,
      add column "next_attempt_at" timestamptz not null default now(), add column "broadcast_at" timestamptz null, add column "confirmed_at" timestamptz null;`);
    // Hand-written: the payout worker claims due, unfinished payouts (FOR UPDATE SKIP LOCKED).
    this.addSql(`create index "payout_due_idx" on "payout" ("next_attempt_at") where "status" <> 'sent';`);

    this.addSql(`create table "settlement_run" ("day" varchar(10) not null, "cutoff" timestamptz not null, "started_at" timestamptz not null default now(),
      "lease_until" timestamptz not null, "finished_at" timestamptz null, "sellers" int not null default 0, "total_atomic" numeric(78,0) not null default 0,
      "carried_over" int not null default 0, primary key ("day"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "settlement_run" cascade;`);
    this.addSql(`drop index if exists "payout_due_idx";`);
    this.addSql(`alter table "payout" drop column "raw", drop column "valid_until", drop column "attempts", drop column "next_attempt_at", drop column "broadcast_at", drop column "confirmed_at";`);
    this.addSql(`drop index if exists "payment_payout_claim_idx";`);
    this.addSql(`drop index if exists "payment_unclaimed_idx";`);
    this.addSql(`alter table "payment" drop column "payout_claim";`);
  }

}
