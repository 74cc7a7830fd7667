// Generates one Prisma client per provider from prisma/schema.prisma without Prisma's binary
// download server: `prisma generate` (7.x) only checks that a schema-engine binary exists.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = readFileSync(join(root, 'prisma/schema.prisma'), 'utf8');
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
for (const provider of ['sqlite', 'postgresql']) {
  const dir = join(root, 'prisma', provider);
  mkdirSync(dir, { recursive: true });
  const schema = join(dir, 'schema.prisma');
  const text =
    `// GENERATED from prisma/schema.prisma by scripts/prisma-generate.mjs — edit that file instead.\n` +
    source.replaceAll('"PROVIDER"', `"${provider}"`).replaceAll('../src/generated/PROVIDER', `../../src/generated/${provider}`);
  writeFileSync(schema, text);
  execFileSync(join(root, 'node_modules/.bin/prisma'), ['generate', '--schema', schema], { env, stdio: 'inherit', cwd: root });
}
