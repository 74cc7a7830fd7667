import { describe } from 'vitest';
import { plansSuite } from './plans-suite.js';
import { queueSuite } from './queue-suite.js';
import { revisionsSuite } from './revisions-suite.js';

/**
 * The same store specification on PostgreSQL: runs when DB=postgres or DATABASE_URL is a postgres
 * URL, and always in CI (CI=true), where a server that cannot be reached fails the run. Elsewhere
 * the suite is reported as skipped, with how to run it.
 */
const wanted = process.env.DB === 'postgres' || /^postgres(ql)?:\/\//i.test(process.env.DATABASE_URL ?? '') || process.env.CI === 'true';

if (!wanted) console.warn('store suite on PostgreSQL not run: set DATABASE_URL=postgres://… or DB=postgres to run it (in CI it always runs)');
describe.runIf(wanted)('PostgreSQL (set DATABASE_URL=postgres://… or DB=postgres to run)', () => {
  plansSuite('postgres');
  queueSuite('postgres');
  revisionsSuite('postgres');
});
