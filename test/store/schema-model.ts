import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The tables, columns and indexes that prisma/schema.prisma describes, parsed just enough for the drift check. */
export interface ExpectedColumn {
  name: string;
  prismaType: string;
  nullable: boolean;
}
export interface ExpectedIndex {
  columns: string[];
  unique: boolean;
}
export interface ExpectedTable {
  model: string;
  name: string;
  columns: ExpectedColumn[];
  indexes: ExpectedIndex[];
}

export const SCHEMA_FILE = fileURLToPath(new URL('../../prisma/schema.prisma', import.meta.url));

export function parseSchema(text = readFileSync(SCHEMA_FILE, 'utf8')): ExpectedTable[] {
  const blocks = [...text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)];
  const models = new Set(blocks.map((b) => b[1]!));
  return blocks.map(([, model, body]) => {
    const lines = body!
      .split('\n')
      .map((l) => l.replace(/\/\/.*$/, '').trim())
      .filter((l) => l !== '');
    const columnOf = new Map<string, string>();
    const columns: ExpectedColumn[] = [];
    const indexes: ExpectedIndex[] = [];
    let name = model!;
    for (const line of lines) {
      if (line.startsWith('@@')) continue;
      const [field, type] = line.split(/\s+/) as [string, string];
      const base = type.replace(/[?[\]]/g, '');
      if (models.has(base) || type.endsWith('[]')) continue;
      const column = /@map\("([^"]+)"\)/.exec(line)?.[1] ?? field;
      columnOf.set(field, column);
      columns.push({ name: column, prismaType: base, nullable: type.endsWith('?') });
      if (/@unique\b/.test(line)) indexes.push({ columns: [column], unique: true });
    }
    for (const line of lines) {
      const map = /^@@map\("([^"]+)"\)/.exec(line);
      if (map) name = map[1]!;
      const index = /^@@(index|unique)\(\[([^\]]+)\]/.exec(line);
      if (index) indexes.push({ unique: index[1] === 'unique', columns: index[2]!.split(',').map((f) => columnOf.get(f.trim()) ?? f.trim()) });
    }
    return { model: model!, name, columns, indexes };
  });
}

/** Column types each provider's migration must use for a Prisma scalar type. */
export const COLUMN_TYPES: Record<string, { sqlite: string; postgres: string }> = {
  String: { sqlite: 'TEXT', postgres: 'text' },
  Int: { sqlite: 'INTEGER', postgres: 'integer' },
  BigInt: { sqlite: 'BIGINT', postgres: 'bigint' },
};
