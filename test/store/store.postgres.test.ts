import { describe, it } from 'vitest';
import { postgresServerUrl } from '../support/db.js';
import { storeSuite } from './store-suite.js';

/**
 * The same store specification on PostgreSQL: runs when DB=postgres or DATABASE_URL is a postgres
 * URL, and always in CI (CI=true), where a server that cannot be reached fails the run.
 */
const wanted = process.env.DB === 'postgres' || /^postgres(ql)?:\/\//i.test(process.env.DATABASE_URL ?? '') || process.env.CI === 'true';

if (wanted) {
  storeSuite('postgres');
} else {
  console.warn('store suite on PostgreSQL skipped: set DATABASE_URL=postgres://… or DB=postgres to run it (in CI it always runs)');
  describe('store on postgres', () => {
    it.skip(`skipped: PostgreSQL not requested (set DATABASE_URL=${postgresServerUrl()} or DB=postgres to run the store suite on it)`, () => {});
  });
}
