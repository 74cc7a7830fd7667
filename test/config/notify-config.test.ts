/**
 * Notifiers in the configuration: `"notify": [...]` in dotplan.config.json (or `{"targets": [...]}`
 * beside the other notify settings, or DOTPLAN_NOTIFY as JSON), secrets read from the environment,
 * and errors that name the entry and field without echoing a secret.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { assertNotifiersReady, notifiersFor } from '../../src/notify/targets.js';

function withFile(data: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-notify-config-'));
  writeFileSync(join(dir, 'dotplan.config.json'), JSON.stringify(data));
  return dir;
}

async function failure(data: unknown, env: Record<string, string> = {}): Promise<string> {
  const error = await resolveConfig({ cwd: withFile(data), env }).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error, 'the configuration is refused').toBeDefined();
  expect(error).toMatchObject({ code: 'CONFIG' });
  return error!.message;
}

describe('notify configuration', () => {
  it('reads the issue\'s form: a list under "notify", names defaulting to the type, secrets from env:NAME', async () => {
    const cwd = withFile({
      notify: [
        { type: 'dingtalk', url: 'https://oapi.dingtalk.com/robot/send?access_token=env', secret: 'env:DING_SECRET' },
        { type: 'slack', name: 'ops', url: 'env:SLACK_URL', timeout: '3s' },
        { type: 'webhook', url: 'http://127.0.0.1:9/hook', headers: { authorization: 'env:HOOK_AUTH' } },
      ],
    });
    const config = await resolveConfig({ cwd, env: { DING_SECRET: 'SEC1', SLACK_URL: 'https://hooks.slack.com/services/T/B/x', HOOK_AUTH: 'Bearer z' } });
    expect(config.notify.targets).toEqual([
      { name: 'dingtalk', type: 'dingtalk', url: 'https://oapi.dingtalk.com/robot/send?access_token=env', secret: 'SEC1', timeoutMs: 10_000 },
      { name: 'ops', type: 'slack', url: 'https://hooks.slack.com/services/T/B/x', timeoutMs: 3_000 },
      { name: 'webhook', type: 'webhook', url: 'http://127.0.0.1:9/hook', headers: { authorization: 'Bearer z' }, timeoutMs: 10_000 },
    ]);
    expect(config.notify.retries).toBe(3);
    expect(config.notify.retryDelay).toBe('1s');
  });

  it('takes the object form with the other notify settings, the environment over the file, and webhookUrl as one more webhook', async () => {
    const cwd = withFile({
      notify: { targets: [{ type: 'feishu', url: 'https://open.feishu.cn/open-apis/bot/v2/hook/x' }], retries: 1, webhookUrl: 'http://127.0.0.1:9/old' },
    });
    const fromFile = await resolveConfig({ cwd, env: {} });
    expect(fromFile.notify.targets.map((t) => `${t.name}:${t.type}`)).toEqual(['feishu:feishu', 'webhook:webhook']);
    expect(fromFile.notify.retries).toBe(1);
    const fromEnv = await resolveConfig({
      cwd,
      env: { DOTPLAN_NOTIFY: '[{"type": "lark", "url": "https://open.larksuite.com/x"}]', DOTPLAN_NOTIFY_RETRY_DELAY: '250ms' },
    });
    expect(fromEnv.notify.targets.map((t) => t.name)).toEqual(['lark', 'webhook']);
    expect(fromEnv.notify.retryDelay).toBe('250ms');
  });

  it('refuses a bad entry, naming the entry and the field and what is allowed', async () => {
    expect(await failure({ notify: [{ type: 'teams', url: 'https://x' }] })).toMatch(
      /"notify": entry 1: "type" must be one of webhook, dingtalk, feishu, lark, slack$/,
    );
    expect(await failure({ notify: [{ type: 'slack', url: 'ftp://x' }] })).toContain('entry 1: "url" must be an http(s) URL');
    expect(await failure({ notify: [{ type: 'slack', url: 'https://x', secret: 's' }] })).toContain('Slack incoming webhooks take no "secret"');
    expect(await failure({ notify: [{ type: 'webhook', url: 'https://x', retry: 3 }] })).toContain(
      '"retry" is not a notifier field; known: name, type, url, secret, headers, timeout',
    );
    expect(
      await failure({
        notify: [
          { type: 'slack', url: 'https://a' },
          { type: 'slack', url: 'https://b' },
        ],
      }),
    ).toContain('entry 2: the name "slack" is used twice');
    expect(await failure({ notify: 'https://x' })).toContain('"notify" must be a list of notifiers or an object of notify settings');
    expect((await resolveConfig({ cwd: withFile({ notify: [] }), env: {} })).notify.targets).toEqual([]); // an empty list: the console only
  });

  it('names a missing environment variable, and never prints a secret in an error', async () => {
    // Only a worker sends notices: the configuration still resolves, and the worker refuses to start.
    const config = await resolveConfig({
      cwd: withFile({ notify: [{ type: 'dingtalk', name: 'team', url: 'https://oapi.dingtalk.com/robot/send?access_token=T0KEN', secret: 'env:NOPE' }] }),
      env: {},
    });
    expect(() => assertNotifiersReady(config.notify.targets)).toThrow('notifier "team": "secret" names the environment variable NOPE, which is not set');
    expect(await failure({ notify: [{ type: 'slack', url: 'env:lower-case!' }] })).toContain('"url": "env:lower-case!" must name an environment variable');
    const bad = await failure({
      notify: [{ type: 'dingtalk', url: 'https://oapi.dingtalk.com/robot/send?access_token=T0KEN', secret: 'SUPERSECRET', timeout: 'soon' }],
    });
    expect(bad).toContain('"timeout" must be a duration');
    expect(bad).not.toContain('SUPERSECRET');
    expect(bad).not.toContain('T0KEN');
    const env = await resolveConfig({
      cwd: withFile({}),
      env: { DOTPLAN_NOTIFY: '[{"type": "slack", "url": "https://hooks.slack.com/SECRETPATH", "secret": "x"}]' },
    }).catch((e: Error) => e.message);
    expect(env).toMatch(/^DOTPLAN_NOTIFY: entry 1: Slack/);
    expect(env).not.toContain('SECRETPATH');
  });

  it('a plan\'s notify attribute picks notifiers by name; "none" leaves the console only; unknown names are reported', () => {
    const configured = [
      { name: 'ops', type: 'slack' as const, url: 'https://a', timeoutMs: 1 },
      { name: 'dingtalk', type: 'dingtalk' as const, url: 'https://b', timeoutMs: 1 },
    ];
    expect(notifiersFor(configured, undefined).targets.map((t) => t.name)).toEqual(['ops', 'dingtalk']);
    expect(notifiersFor(configured, ['dingtalk'])).toEqual({ targets: [configured[1]], unknown: [] });
    expect(notifiersFor(configured, ['none'])).toEqual({ targets: [], unknown: [] });
    expect(notifiersFor(configured, ['ops', 'pager'])).toEqual({ targets: [configured[0]], unknown: ['pager'] });
  });
});
