/**
 * `dotplan notify test`: a sample question to the configured notifiers, signed and retried as a
 * worker would, with a verdict per notifier — real receivers, the real command.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dingtalkRobot } from '../notify/chat-apps.js';
import { startReceiver, type Receiver } from '../notify/receivers.js';
import { runCli } from './run-cli.js';

describe('dotplan notify test', () => {
  let cwd: string;
  let robot: Receiver;
  let broken: Receiver;
  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-notify-test-'));
    robot = await startReceiver(dingtalkRobot('SEC'));
    broken = await startReceiver({ status: 503, body: 'maintenance' });
    writeFileSync(
      join(cwd, 'dotplan.config.json'),
      JSON.stringify({
        notify: {
          targets: [
            { type: 'dingtalk', name: 'team', url: `${robot.url}?access_token=T`, secret: 'SEC' },
            { type: 'webhook', name: 'down', url: broken.url },
          ],
          retries: 1,
          retryDelay: '10ms',
        },
      }),
    );
  });
  afterAll(async () => {
    await robot.close();
    await broken.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('sends a sample to each notifier and says which accepted it; exit 1 when one did not', async () => {
    const result = await runCli(['notify', 'test'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^team\s+dingtalk\s+delivered\s+1$/m);
    expect(result.stdout).toMatch(/^down\s+webhook\s+failed: answered 503 Service Unavailable: maintenance\s+2$/m);
    expect((robot.received[0]!.json as { text: { content: string } }).text.content).toContain('This is a test notice from dotplan');
    expect(broken.received).toHaveLength(2);
    // Marked as a test wherever it lands: the words a chat shows, and the webhook's fields.
    expect((robot.received[0]!.json as { text: { content: string } }).text.content).toMatch(/^\[TEST\] dotplan notify test: .*nothing to answer/);
    expect(broken.received[0]!.json).toMatchObject({ test: true, text: expect.stringMatching(/^\[TEST\] /) as unknown });
  });

  it('--name picks notifiers; an unknown name is a usage error listing the configured ones', async () => {
    const one = await runCli(['notify', 'test', '--name', 'team', '--json'], { cwd });
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual([{ name: 'team', type: 'dingtalk', ok: true, attempts: 1 }]);
    const unknown = await runCli(['notify', 'test', '--name', 'pager'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no notifier named "pager"; configured: team, down');
  });
});
