import { Migration } from '@mikro-orm/migrations';

/**
 * A quote is the offer (issue 20, item 4): each recent issue time of a request's quotes keeps
 * the amount quoted then (`quoted_amounts`, parallel to `quoted_times`), so a payment is
 * judged against the prices its live quotes named, not against the price at payment time.
 * Existing rows get their one known amount for every kept time.
 */
export class Migration20261125110000_quote_offer extends Migration {
  override name = 'Migration20261125110000_quote_offer';

  override up(): void | Promise<void> {
    this.addSql(`alter table "quote" add column "quoted_amounts" numeric(78,0)[] not null default '{}';`);
    this.addSql(`update "quote" set "quoted_amounts" = array_fill("amount", array[cardinality("quoted_times")]) where cardinality("quoted_times") > 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "quote" drop column "quoted_amounts";`);
  }
}
