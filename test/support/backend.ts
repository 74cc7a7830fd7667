/** The database backend a test run uses, from its environment (no database driver loaded here: the test config reads it too). */
export type TestBackend = 'sqlite' | 'postgres';

/** PostgreSQL when DB=postgres or DATABASE_URL is a postgres URL; else SQLite. */
export function testBackend(env: NodeJS.ProcessEnv = process.env): TestBackend {
  if (env.DB === 'postgres' || /^postgres(ql)?:\/\//i.test(env.DATABASE_URL ?? '')) return 'postgres';
  return 'sqlite';
}
