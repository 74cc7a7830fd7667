/** The private PostgreSQL server tests stop and start (a database outage): src/bench/private-postgres.ts. */
export { startPrivatePostgres, type PrivatePostgres } from '../../src/bench/private-postgres.js';
