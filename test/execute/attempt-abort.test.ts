import { describe, expect, it } from 'vitest';
import { AttemptAbort } from '../../src/execute/attempt-abort.js';

describe('AttemptAbort', () => {
  it('fires its listeners once, with the reason, and a listener added after the abort at once', () => {
    const abort = new AttemptAbort();
    const heard: unknown[] = [];
    abort.onAbort((reason) => heard.push(['first', reason]));
    const stop = abort.onAbort((reason) => heard.push(['stopped', reason]));
    stop();
    const reason = new Error('lease lost');
    abort.abort(reason);
    abort.abort(new Error('shutdown')); // a second abort changes nothing
    abort.onAbort((late) => heard.push(['late', late]));
    expect(heard).toEqual([
      ['first', reason],
      ['late', reason],
    ]);
    expect(abort.aborted).toBe(true);
    expect(abort.reason).toBe(reason);
  });

  it('gives a real AbortSignal that fires with it, whether read before or after the abort', () => {
    const before = new AttemptAbort();
    const signal = before.signal;
    const fired: unknown[] = [];
    signal.addEventListener('abort', () => fired.push(signal.reason));
    expect(signal.aborted).toBe(false);
    const reason = new Error('plan cancelled');
    before.abort(reason);
    expect(fired).toEqual([reason]);
    expect(before.signal).toBe(signal);

    const after = new AttemptAbort();
    after.abort(reason);
    expect(after.signal).toBeInstanceOf(AbortSignal);
    expect(after.signal.aborted).toBe(true);
    expect(after.signal.reason).toBe(reason);
  });

  it('aborts with an AbortError by default, as AbortController does', () => {
    const abort = new AttemptAbort();
    abort.abort();
    expect(abort.reason).toMatchObject({ name: 'AbortError' });
    expect(abort.signal.reason).toBe(abort.reason);
  });

  it('makes children that its abort fires, until they are stopped', () => {
    const parent = new AttemptAbort();
    const kept = parent.child();
    const stopped = parent.child();
    stopped.stop();
    const own = parent.child();
    own.abort.abort(new Error('timed out'));
    parent.abort(new Error('shutdown'));
    expect(kept.abort.reason).toMatchObject({ message: 'shutdown' });
    expect(stopped.abort.aborted).toBe(false);
    expect(own.abort.reason).toMatchObject({ message: 'timed out' }); // a child's own abort stays its own
    expect(parent.child().abort.aborted).toBe(true); // a child of an aborted abort starts aborted
  });
});
