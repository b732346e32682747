import { Migration } from '@mikro-orm/migrations';

/**
 * Settlement: the payout row is the intent and the job. A payment row is claimed by exactly one
 * payout (a payout_item row, whose primary key is the payment) when the payout is written;
 * payment.payout_id (the settlement reference the account reads) is set only once the payout's
 * transaction is confirmed. Claims are a narrow table of their own rather than a column of
 * payment: a claim is then an insert of two integers, not a rewrite of a wide ledger row and all
 * its indexes (the ledger row is rewritten once, at confirmation). settlement_run makes
 * one instance the day's runner (its primary key) and lets another take over a run whose
 * instance died (lease_until).
 */
export class Migration20261123091000_settlement extends Migration {

  override name = 'Migration20261123091000_settlement';

  override up(): void | Promise<void> {
    this.addSql(`create table "payout_item" ("payment_id" bigint not null, "payout_id" bigint not null, primary key ("payment_id"));`);
    this.addSql(`create index "payout_item_payout_idx" on "payout_item" ("payout_id");`);

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
    this.addSql(`drop table if exists "payout_item" cascade;`);
  }

}
