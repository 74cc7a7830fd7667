import { quote } from 'shell-quote';

/**
 * A command line to copy and paste into a POSIX shell: each argument quoted as the shell needs it
 * (plain words stay as they are), so that an id such as `q; touch pwned #` stays one argument and
 * never runs anything.
 */
export function commandLine(...args: readonly string[]): string {
  return args.map((arg) => quote([arg])).join(' ');
}

/**
 * The command that answers something waiting for a person: a review is approved (`plan reject
 * --reason` and `plan modify` are the other ways); a question is answered with its first option, or
 * a placeholder to replace when it has none. Notices and `dotplan inbox` show the same line.
 */
export function answerCommand(item: { kind: 'question' | 'review'; planId: string; nodeId?: string; options?: readonly string[] }): string {
  if (item.kind === 'review') return commandLine('dotplan', 'plan', 'approve', item.planId);
  const answer = item.options?.[0];
  const command = commandLine('dotplan', 'answer', item.planId, item.nodeId ?? '');
  return answer === undefined ? `${command} "<your answer>"` : `${command} ${commandLine(answer)}`;
}

/** Every way to decide a review, the approval first: `dotplan inbox` lists them all. */
export function reviewCommands(planId: string): string[] {
  return [
    answerCommand({ kind: 'review', planId }),
    `${commandLine('dotplan', 'plan', 'reject', planId)} --reason "<why>"`,
    `${commandLine('dotplan', 'plan', 'modify', planId)} --dot <file>`,
  ];
}
