import { plansSuite } from './plans-suite.js';
import { queueSuite } from './queue-suite.js';
import { revisionsSuite } from './revisions-suite.js';

plansSuite('sqlite');
queueSuite('sqlite');
revisionsSuite('sqlite');
