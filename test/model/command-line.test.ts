import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { noticeText } from '../../src/notify/notice.js';

/** The arguments a POSIX shell makes of a command line (each printed on its own line). */
function shellArguments(line: string): string[] {
  const out = execFileSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' });
  return out.split('\n').slice(0, -1);
}

describe('suggested commands', () => {
  it('quote every id, so that a node id like `q; touch pwned #` stays one argument and runs nothing', () => {
    const text = noticeText({ planId: 'p_1', nodeId: "q; touch pwned # it's", question: 'ok?', reminder: 0 });
    const line = /Answer with: (.*) "<your answer>"$/m.exec(text)![1]!;
    expect(shellArguments(line)).toEqual(['dotplan', 'answer', 'p_1', "q; touch pwned # it's"]);
  });

  it('leave plain ids as they are', () => {
    expect(noticeText({ planId: 'p_1', nodeId: 'approve', question: 'ok?', reminder: 0 })).toContain('Answer with: dotplan answer p_1 approve "<your answer>"');
  });
});
