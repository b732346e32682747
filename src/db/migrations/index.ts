/** Every committed migration, in order. openDatabase applies the pending ones at start. */
import { Migration20261121073529_initial } from './Migration20261121073529_initial.ts';

export const migrationsList = [{ name: 'Migration20261121073529_initial', class: Migration20261121073529_initial }];
