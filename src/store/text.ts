/**
 * Text values as stored. PostgreSQL's TEXT cannot hold the NUL character, and a tool's output may
 * contain one; so a value holding NUL (or starting with the marker below) is stored as the marker
 * followed by its JSON encoding, which any text column holds, and decoded on the way out. Every
 * other value is stored as it is. The same on both backends, so rows read the same everywhere.
 */
const MARKER = '\u0001dotplan-json:';

export function encodeText(value: string): string;
export function encodeText(value: string | null | undefined): string | null;
export function encodeText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value.includes('\u0000') || value.startsWith(MARKER) ? MARKER + JSON.stringify(value) : value;
}

export function decodeText(value: string): string;
export function decodeText(value: string | null | undefined): string | null;
export function decodeText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value.startsWith(MARKER) ? (JSON.parse(value.slice(MARKER.length)) as string) : value;
}
