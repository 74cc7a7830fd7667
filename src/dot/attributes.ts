import type { Attributes } from '../model/types.js';

/** Sets an attribute as an own property, even for keys like `__proto__` that plain assignment would not store. */
export function setAttribute(target: Attributes, key: string, value: string): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
