import { describe } from 'vitest';
import { testBackend } from '../support/backend.js';
import { activitySuite } from './activity-suite.js';
import { attentionSuite } from './attention-suite.js';
import { plansSuite } from './plans-suite.js';
import { queueSuite } from './queue-suite.js';
import { revisionsSuite } from './revisions-suite.js';

/** The store specification on SQLite: in the SQLite run (`npm test`); the PostgreSQL run has store.postgres.test.ts. */
describe.runIf(testBackend() === 'sqlite')('SQLite', () => {
  plansSuite('sqlite');
  queueSuite('sqlite');
  revisionsSuite('sqlite');
  activitySuite('sqlite');
  attentionSuite('sqlite');
});
