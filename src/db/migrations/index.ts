/** Every committed migration, in order. openDatabase applies the pending ones at start. */
import { Migration20261121073529_initial } from './Migration20261121073529_initial.ts';
import { Migration20261123040000_payment_integrity } from './Migration20261123040000_payment_integrity.ts';
import { Migration20261123040000_seller_marketplace } from './Migration20261123040000_seller_marketplace.ts';
import { Migration20261123090000_api_keys } from './Migration20261123090000_api_keys.ts';
import { Migration20261123091000_settlement } from './Migration20261123091000_settlement.ts';
import { Migration20261125100000_undelivered_calls } from './Migration20261125100000_undelivered_calls.ts';
import { Migration20261125110000_quote_offer } from './Migration20261125110000_quote_offer.ts';
import { Migration20261125120000_receipt_lease } from './Migration20261125120000_receipt_lease.ts';
import { Migration20261125140000_payment_identifier } from './Migration20261125140000_payment_identifier.ts';
import { Migration20261126120000_payment_identifier_age } from './Migration20261126120000_payment_identifier_age.ts';

export const migrationsList = [
  { name: 'Migration20261121073529_initial', class: Migration20261121073529_initial },
  { name: 'Migration20261123040000_payment_integrity', class: Migration20261123040000_payment_integrity },
  { name: 'Migration20261123040000_seller_marketplace', class: Migration20261123040000_seller_marketplace },
  { name: 'Migration20261123090000_api_keys', class: Migration20261123090000_api_keys },
  { name: 'Migration20261123091000_settlement', class: Migration20261123091000_settlement },
  { name: 'Migration20261125100000_undelivered_calls', class: Migration20261125100000_undelivered_calls },
  { name: 'Migration20261125110000_quote_offer', class: Migration20261125110000_quote_offer },
  { name: 'Migration20261125120000_receipt_lease', class: Migration20261125120000_receipt_lease },
  { name: 'Migration20261125140000_payment_identifier', class: Migration20261125140000_payment_identifier },
  { name: 'Migration20261126120000_payment_identifier_age', class: Migration20261126120000_payment_identifier_age },
];
