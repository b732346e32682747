import { Migration } from '@mikro-orm/migrations';

export class Migration20261121073529_initial extends Migration {

  override name = 'Migration20261121073529_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "api_key" ("id" serial primary key, "wallet" varchar(64) not null, "wallet_key" varchar(64) not null, "key_prefix" varchar(32) not null, "key_hash" varchar(64) not null, "label" varchar(64) null, "scopes" jsonb not null, "created_at" timestamptz not null default now(), "last_used_at" timestamptz null, "expires_at" timestamptz null, "revoked_at" timestamptz null);`);
    this.addSql(`create index "api_key_wallet_idx" on "api_key" ("wallet_key");`);
    this.addSql(`alter table "api_key" add constraint "api_key_hash_unique" unique ("key_hash");`);

    this.addSql(`create table "consumed_receipt" ("receipt_key" varchar(200) not null, "network" varchar(16) not null, "fingerprint" varchar(64) not null, "payment_id" bigint null, "alias_of" varchar(200) null, "state" varchar(16) not null default 'running', "lease_until" timestamptz not null, "response_status" int null, "response_headers" jsonb null, "response_body" bytea null, "created_at" timestamptz not null default now(), "completed_at" timestamptz null, primary key ("receipt_key"));`);

    this.addSql(`create table "endpoint_error_count" ("id" bigserial primary key, "endpoint_id" int not null, "seller_id" int not null, "hour" timestamptz not null, "code" varchar(64) not null, "count" int not null default 0);`);
    this.addSql(`create index "endpoint_error_seller_idx" on "endpoint_error_count" ("seller_id");`);
    this.addSql(`alter table "endpoint_error_count" add constraint "endpoint_error_count_unique" unique ("endpoint_id", "hour", "code");`);

    this.addSql(`create table "payment" ("id" bigserial primary key, "network" varchar(16) not null, "tx" varchar(128) not null, "payer" varchar(64) not null, "amount" numeric(78,0) not null, "quoted_amount" numeric(78,0) not null, "endpoint_path" varchar(128) not null, "seller_id" int null, "endpoint_id" int null, "take_bps" int not null, "fee" numeric(78,0) not null, "net" numeric(78,0) not null, "payout_id" bigint null, "created_at" timestamptz not null default now());`);
    this.addSql(`create index "payment_payer_idx" on "payment" ("payer");`);
    this.addSql(`create index "payment_seller_idx" on "payment" ("seller_id");`);

    this.addSql(`create table "payout" ("id" bigserial primary key, "seller_id" int not null, "wallet" varchar(64) not null, "chain" varchar(16) not null, "amount" numeric(78,0) not null, "status" varchar(16) not null default 'pending', "tx" varchar(128) null, "error" text null, "settlement_day" varchar(10) null, "created_at" timestamptz not null default now(), "sent_at" timestamptz null);`);
    this.addSql(`create index "payout_seller_idx" on "payout" ("seller_id");`);
    this.addSql(`alter table "payout" add constraint "payout_seller_day_unique" unique ("seller_id", "settlement_day");`);

    this.addSql(`create table "quote" ("id" bigserial primary key, "fingerprint" varchar(64) not null, "resource" text not null, "endpoint_key" varchar(128) not null, "amount" numeric(78,0) not null, "pages" int null, "created_at" timestamptz not null default now());`);
    this.addSql(`alter table "quote" add constraint "quote_fingerprint_unique" unique ("fingerprint");`);

    this.addSql(`create table "seller" ("id" serial primary key, "wallet" varchar(64) not null, "wallet_key" varchar(64) not null, "slug" varchar(32) not null, "payout_chain" varchar(16) not null, "status" varchar(16) not null default 'active', "created_at" timestamptz not null default now(), "suspended_at" timestamptz null);`);
    this.addSql(`alter table "seller" add constraint "seller_wallet_key_unique" unique ("wallet_key");`);
    this.addSql(`alter table "seller" add constraint "seller_slug_unique" unique ("slug");`);

    this.addSql(`create table "seller_endpoint" ("id" serial primary key, "seller_id" int not null, "slug" varchar(32) not null, "path_suffix" varchar(64) not null, "upstream_url" text not null, "atomic_price" numeric(78,0) not null, "unit" varchar(32) not null, "desc" varchar(200) not null, "mode" varchar(16) not null, "sample_body" jsonb null, "alert_email" varchar(254) null, "status" varchar(16) not null default 'pending', "consecutive_failures" int not null default 0, "consecutive_successes" int not null default 0, "degraded_at" timestamptz null, "last_probe" jsonb null, "next_probe_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null);`);
    this.addSql(`create index "seller_endpoint_seller_idx" on "seller_endpoint" ("seller_id");`);

    this.addSql(`create table "seller_wallet" ("id" serial primary key, "seller_id" int not null, "chain" varchar(16) not null, "address" varchar(64) not null, "address_key" varchar(64) not null);`);
    this.addSql(`create index "seller_wallet_seller_idx" on "seller_wallet" ("seller_id");`);
    this.addSql(`alter table "seller_wallet" add constraint "seller_wallet_chain_address_unique" unique ("chain", "address_key");`);

    // Hand-written: a published path is unique among live endpoints only, so a soft-deleted
    // endpoint frees its path; and the live lookup /v1/<slug>/<path_suffix> is an index scan.
    this.addSql(`create unique index "seller_endpoint_live_path_unique" on "seller_endpoint" ("slug", "path_suffix") where "deleted_at" is null;`);
    // A settled payout references ledger rows; unsettled rows are what settlement scans.
    this.addSql(`create index "payment_unsettled_idx" on "payment" ("seller_id") where "payout_id" is null and "seller_id" is not null;`);

    this.addSql(`create table "used_signature" ("signature_hash" varchar(64) not null, "wallet" varchar(64) not null, "action" varchar(32) not null, "created_at" timestamptz not null default now(), primary key ("signature_hash"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "api_key" cascade;`);
    this.addSql(`drop table if exists "consumed_receipt" cascade;`);
    this.addSql(`drop table if exists "endpoint_error_count" cascade;`);
    this.addSql(`drop table if exists "payment" cascade;`);
    this.addSql(`drop table if exists "payout" cascade;`);
    this.addSql(`drop table if exists "quote" cascade;`);
    this.addSql(`drop table if exists "seller" cascade;`);
    this.addSql(`drop table if exists "seller_endpoint" cascade;`);
    this.addSql(`drop table if exists "seller_wallet" cascade;`);
    this.addSql(`drop table if exists "used_signature" cascade;`);
  }

}
