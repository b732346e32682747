import { Migration } from '@mikro-orm/migrations';

/**
 * Seller marketplace, part 1: wallet ownership across chains, probe/call observations for the
 * lifecycle and the catalog's latency figures, and the index the probe scheduler claims from.
 */
export class Migration20261123040000_seller_marketplace extends Migration {

  override name = 'Migration20261123040000_seller_marketplace';

  override up(): void | Promise<void> {
    // A wallet owns at most one slug, whatever chain it was registered for (seller_wallet is
    // unique per chain only, and one seller may list the same EVM address for several chains).
    this.addSql(`create table "seller_wallet_claim" ("address_key" varchar(64) not null, "seller_id" int not null, primary key ("address_key"));`);
    this.addSql(`create index "seller_wallet_claim_seller_idx" on "seller_wallet_claim" ("seller_id");`);

    this.addSql(`create table "endpoint_observation" ("id" bigserial primary key, "endpoint_id" int not null, "at" timestamptz not null default now(), "source" varchar(16) not null, "region" varchar(32) not null, "ok" boolean not null, "status_code" int null, "latency_ms" int null, "error" text null);`);
    this.addSql(`create index "endpoint_observation_endpoint_at_idx" on "endpoint_observation" ("endpoint_id", "at");`);

    this.addSql(`alter table "seller_endpoint" add column "probe_attempts" int not null default 0;`);
    // Hand-written: the probe scheduler claims due rows of live endpoints (FOR UPDATE SKIP LOCKED).
    this.addSql(`create index "seller_endpoint_due_idx" on "seller_endpoint" ("next_probe_at") where "deleted_at" is null;`);
    this.addSql(`create index "used_signature_created_idx" on "used_signature" ("created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "used_signature_created_idx";`);
    this.addSql(`drop index if exists "seller_endpoint_due_idx";`);
    this.addSql(`alter table "seller_endpoint" drop column "probe_attempts";`);
    this.addSql(`drop table if exists "endpoint_observation" cascade;`);
    this.addSql(`drop table if exists "seller_wallet_claim" cascade;`);
  }

}
