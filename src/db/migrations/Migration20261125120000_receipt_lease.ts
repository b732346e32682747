import { Migration } from '@mikro-orm/migrations';

/**
 * Receipt leases that end when their holder dies: a run's lease is short and renewed by a
 * heartbeat of the instance that holds it, named here. Only the holder renews the lease, stores
 * the answer, gives the lease back or releases the reservation, so an instance that lost its
 * lease (stalled past it and was taken over) can no longer overwrite the new holder's work.
 */
export class Migration20261125120000_receipt_lease extends Migration {
  override name = 'Migration20261125120000_receipt_lease';

  override up(): void | Promise<void> {
    this.addSql(`alter table "consumed_receipt" add column "lease_holder" varchar(64) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "consumed_receipt" drop column "lease_holder";`);
  }
}
