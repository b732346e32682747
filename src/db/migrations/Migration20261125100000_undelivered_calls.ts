import { Migration } from '@mikro-orm/migrations';

/**
 * Undelivered calls (issue 20, item 2): a seller earns only for calls its upstream served.
 *
 * payment.delivery: 'pending' (the row is written before the run: outcome not known yet),
 * 'delivered' (the upstream served: the seller earns the row's net) or 'undelivered' (the call
 * ended upstream_5xx, upstream_timeout, or with an upstream 5xx passed back: the buyer is not
 * refunded and the seller is not paid; the service keeps the whole amount). New rows are
 * 'pending' (the column default) until the seller call marks them; rows written before this
 * migration were credited as they were written ('delivered'), except those of the failure the
 * issue names: unsettled seller rows (no payout claims them) whose receipt's final answer is a
 * 5xx are 'undelivered' now, so the attack's past rows are not paid either. A row a payout has
 * claimed keeps 'delivered': its payout's amount is the sum of its rows' net.
 *
 * seller_endpoint.call_failures: consecutive failed live (paid) calls, cleared only by a
 * successful live call. While it is above zero a health probe's success proves nothing (an
 * upstream can tell probes from paid calls), so it neither clears the failure streak nor restarts
 * the degraded clock.
 */
export class Migration20261125100000_undelivered_calls extends Migration {
  override name = 'Migration20261125100000_undelivered_calls';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payment" add column "delivery" varchar(16) not null default 'delivered';`);
    this.addSql(`alter table "payment" alter column "delivery" set default 'pending';`);
    this.addSql(`alter table "payment" add constraint "payment_delivery_check" check ("delivery" in ('pending', 'delivered', 'undelivered'));`);
    this.addSql(`update "payment" p set "delivery" = 'undelivered'
      from "consumed_receipt" r
     where r."payment_id" = p."id" and r."state" = 'done' and r."response_status" >= 500
       and p."seller_id" is not null and p."payout_id" is null
       and not exists (select 1 from "payout_item" i where i."payment_id" = p."id");`);
    this.addSql(`alter table "seller_endpoint" add column "call_failures" int not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "seller_endpoint" drop column "call_failures";`);
    this.addSql(`alter table "payment" drop constraint "payment_delivery_check";`);
    this.addSql(`alter table "payment" drop column "delivery";`);
  }
}
