import { describe } from 'vitest';
import { activitySuite } from './activity-suite.js';
import { attentionSuite } from './attention-suite.js';
import { testBackend } from '../support/backend.js';
import { plansSuite } from './plans-suite.js';
import { queueSuite } from './queue-suite.js';
import { revisionsSuite } from './revisions-suite.js';

/**
 * The same store specification on PostgreSQL: in the PostgreSQL run (`DB=postgres DATABASE_URL=…
 * npm test`, as CI runs it, where a server that cannot be reached fails the run).
 */
describe.runIf(testBackend() === 'postgres')('PostgreSQL', () => {
  plansSuite('postgres');
  queueSuite('postgres');
  revisionsSuite('postgres');
  activitySuite('postgres');
  attentionSuite('postgres');
});
