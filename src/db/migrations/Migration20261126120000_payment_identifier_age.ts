import { Migration } from '@mikro-orm/migrations';

/**
 * payment_identifier rows are forgotten after their retention (payments/housekeeping.ts): the
 * purge finds them by age, so the age is indexed.
 */
export class Migration20261126120000_payment_identifier_age extends Migration {
  override name = 'Migration20261126120000_payment_identifier_age';

  override up(): void | Promise<void> {
    this.addSql(`create index "payment_identifier_created_at_index" on "payment_identifier" ("created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "payment_identifier_created_at_index";`);
  }
}
