import { InvalidArgumentError, InvalidInputError } from '../errors/errors.js';

/** Which flag of a command gave an argument of the library call it makes (`goal` → `--goal`). */
export type FlagOf = (argument: string) => string | undefined;

/** `plan create` and `demo`: the input's fields and the template values. */
export const createFlags: FlagOf = (argument) => {
  if (argument.startsWith('values.')) return `--set ${argument.slice('values.'.length)}=…`;
  return { goal: '--goal', dot: '--dot', template: '--template', title: '--title', by: '--by' }[argument];
};

/** `plan modify`, `plan reject` and the other review commands. */
export const reviewFlags: FlagOf = (argument) => ({ suggestion: '--suggestion', dot: '--dot', reason: '--reason', by: '--by' })[argument];

/**
 * Runs a library call for a command; an argument it refuses is said of the flag that gave it
 * (`--goal is empty: …` where the library says `create: goal is empty: …`). The library speaks of
 * arguments, the command line of flags; the problem is worded once, by the library.
 */
export async function withFlags<T>(flagOf: FlagOf, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const flag = error instanceof InvalidArgumentError ? flagOf(error.argument) : undefined;
    if (flag === undefined) throw error;
    throw new InvalidInputError(`${flag} ${(error as InvalidArgumentError).problem}`, { cause: error });
  }
}
