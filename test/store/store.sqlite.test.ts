import { storeSuite } from './store-suite.js';

storeSuite('sqlite');
