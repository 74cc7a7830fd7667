/**
 * The wrapper's rules on their own (the traffic is tested in client.db.test.ts): an external agent's
 * definition is checked field by field, naming the field and the fix; redaction takes out what must not
 * leave and keeps ordinary text; the policy refuses a skill or a size before anything is sent; a card that
 * points elsewhere is refused.
 */
import { describe, expect, it } from 'vitest';
import { foreignInterface, metadataOf, outgoingOf, refusal } from '../../src/agents/a2a/policy.js';
import { Redactor } from '../../src/agents/a2a/redact.js';
import { parseAgents } from '../../src/agents/agent-schema.js';
import type { AgentDefinition } from '../../src/agents/types.js';
import { registerSecret } from '../../src/secrets/redact.js';

const base = { code: 'ext', kind: 'a2a', description: 'an external agent', url: 'https://agents.example.com/research' };

describe('an external agent definition', () => {
  it('takes the a2a fields', () => {
    const parsed = parseAgents(
      [{ ...base, auth: { bearer: 'env:TOKEN' }, redact: ['ACME-\\d+'], allowSkills: ['a'], skill: 'a', maxPayload: 100, allowHosts: ['x.example.com'] }],
      'agents',
    );
    expect(parsed).toMatchObject({ ok: true, value: [{ code: 'ext', kind: 'a2a', skill: 'a' }] });
  });

  it.each([
    [
      { ...base, url: undefined },
      'agents[0] (ext).url is required for an a2a agent (its base URL; the card is read from /.well-known/agent-card.json under it)',
    ],
    [{ ...base, url: 'ftp://x' }, `agents[0] (ext).url must be the agent's http(s) base URL, e.g. "https://agents.example.com/research"`],
    [{ ...base, tools: ['echo'] }, 'agents[0] (ext).tools is not for an a2a agent (it runs at its url, with its own tools and model)'],
    [{ ...base, redact: ['(unclosed'] }, 'agents[0] (ext).redact.0 must be a regular expression (JavaScript syntax)'],
    [{ ...base, allowSkills: ['a'], skill: 'b' }, 'agents[0] (ext).skill "b" is not among allowSkills (a)'],
    [{ code: 'r', kind: 'react', description: 'x', url: 'https://a.example.com' }, 'agents[0] (r).url is only for a2a agents (a react agent runs here)'],
    [{ ...base, mode: 'later' }, 'agents[0] (ext).mode must be "stream" or "detached" (got "later")'],
    [{ ...base, pollEvery: '1m' }, 'agents[0] (ext).pollEvery is only for mode "detached" (a streamed task is followed as it goes)'],
    [{ ...base, mode: 'detached', pollEvery: '10ms' }, 'agents[0] (ext).pollEvery must be a duration of at least 1s, such as "30s" or "5m"'],
  ])('refuses %j naming the field', (entry, reason) => {
    expect(parseAgents([entry], 'agents')).toEqual({ ok: false, reason });
  });
});

describe('redaction', () => {
  const redactor = new Redactor(['ACME-\\d+']);
  it('takes out e-mail addresses, phone numbers, keys and tokens, secrets read from env:, and the agent’s patterns', () => {
    registerSecret('wrapper-test-secret-77');
    expect(
      redactor.redact(
        'mail ann.lee@example.co.uk, call +1 (555) 123-4567 or 020 7946 0958, key sk-proj-abcdefghijklmnop1234, ghp_abcdefghijklmnopqrstuvwx, Authorization: Bearer abcdefghijklmnopqrstu, secret wrapper-test-secret-77, order ACME-4471',
      ),
    ).toBe(
      'mail [redacted email], call [redacted phone] or [redacted phone], key [redacted key], [redacted key], Authorization: Bearer [redacted], secret [redacted], order [redacted]',
    );
  });
  it('keeps dates, times, versions, amounts and short numbers', () => {
    const text = 'on 2026-11-27 at 10:30, version 1.2.3.4, 42 items for 1,250.00 EUR, order 12345';
    expect(redactor.redact(text)).toBe(text);
  });
});

describe('the policy', () => {
  const card = { name: 'fixture', skills: ['research', 'translate'], urls: ['https://agents.example.com/research/rpc'], streaming: true };
  const agent = (more: Partial<AgentDefinition> = {}): AgentDefinition => ({ ...(base as AgentDefinition), ...more });
  const input = (agentParams: Record<string, string> = {}) => ({ agentCode: 'ext', task: 'Do it', agentParams, inherited: { topic: 'ACME' }, detach: false });

  it('sends the task with its parameters as lines, the skill and the values in the metadata', () => {
    const research = outgoingOf(agent(), input({ skill: 'research', depth: '2' }));
    expect(research).toEqual({ text: 'Do it\n\ntopic: ACME\ndepth: 2', skill: 'research', values: { topic: 'ACME', depth: '2' } });
    expect(outgoingOf(agent({ skill: 'translate' }), input())).toEqual({ text: 'Do it\n\ntopic: ACME', skill: 'translate', values: { topic: 'ACME' } });
    // The metadata: the skill, and the values (redacted) for an agent whose skill takes them (a dotplan template's).
    expect(metadataOf(research, (t) => t.replace('ACME', '[redacted]'))).toEqual({ skill: 'research', values: { topic: '[redacted]', depth: '2' } });
    expect(metadataOf({ text: 'x', values: {} }, (t) => t)).toBeUndefined();
  });

  it('refuses a skill it does not allow, one the card does not offer, none where only some are allowed, and a message over maxPayload', () => {
    const strict = agent({ allowSkills: ['research'], maxPayload: 10 });
    expect(refusal(strict, card, { skill: 'translate' }, 'x')).toBe('agent ext does not allow skill "translate" (allowSkills: research)');
    expect(refusal(strict, card, {}, 'x')).toMatch(/^agent ext allows only the skills research: name one in the node's agentParams/);
    expect(refusal(agent(), card, { skill: 'poetry' }, 'x')).toBe('agent ext (fixture) has no skill "poetry"; its card offers research, translate');
    expect(refusal(strict, card, { skill: 'research' }, 'ééééééé')).toMatch(/^the message for agent ext is 14 bytes, over its maxPayload of 10/);
    expect(refusal(strict, card, { skill: 'research' }, 'short')).toBeUndefined();
  });

  it('refuses a card whose interface is on another host, unless allowHosts names it', () => {
    const elsewhere = { ...card, urls: ['https://evil.example.net/rpc'] };
    expect(foreignInterface(agent(), card)).toBeUndefined();
    expect(foreignInterface(agent(), elsewhere)).toMatch(/sends requests to evil\.example\.net, another host than agents\.example\.com/);
    expect(foreignInterface(agent({ allowHosts: ['evil.example.net'] }), elsewhere)).toBeUndefined();
  });
});
