import { userInfo } from 'node:os';

/** Who a person or operator command is recorded as when no `by` is given: the OS user. */
export function defaultActor(): string {
  try {
    return userInfo().username || 'operator';
  } catch {
    return 'operator';
  }
}
