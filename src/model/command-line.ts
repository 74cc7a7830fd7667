import { quote } from 'shell-quote';

/**
 * A command line to copy and paste into a POSIX shell: each argument quoted as the shell needs it
 * (plain words stay as they are), so that an id such as `q; touch pwned #` stays one argument and
 * never runs anything.
 */
export function commandLine(...args: readonly string[]): string {
  return args.map((arg) => quote([arg])).join(' ');
}
