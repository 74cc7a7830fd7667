/** "1 call", "3 calls", "2 replies": a count with its noun, for messages and reports. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
