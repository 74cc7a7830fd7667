/**
 * The UI on a server that has API tokens: the browser logs in with one (the session cookie, HttpOnly),
 * reads and follows plans with it, sends its commands with the session's CSRF value, and logs out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawnNode, hasChromium, openUi, type UiUnderTest } from './harness.js';

const PLAN = `digraph paused {
  a [type=function toolCode=template toolInput="x"]
}`;

describe.skipIf(!hasChromium)('logging in to the UI with a token', () => {
  let ui: UiUnderTest;
  let token: string;
  let planId: string;
  beforeAll(async () => {
    ui = await openUi();
    planId = (await ui.t.dotplan.create({ dot: PLAN, source: 'paused.dot' }, { by: 'test' })).id;
    token = (await ui.t.dotplan.tokens.create({ name: 'alice', scope: 'operate', by: 'test' })).secret;
  });
  afterAll(async () => {
    await ui?.close();
  });

  it('asks for a token, then shows the plans, runs commands as the token’s user, and logs out', async () => {
    const page = await ui.page(`#/plans/${planId}`);
    await page.getByLabel('Token').fill('not a token');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not a live token' }).waitFor();

    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('alice (operate)').waitFor();
    await drawnNode(page, 'a', 'ready').waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'dotplan_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    // A command needs the session's CSRF value: the UI sends it; the event names the token's user.
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('h1 .badge.status-paused').waitFor();
    const events = await ui.t.dotplan.events.list({ planId });
    expect(events.find((e) => e.to === 'paused')).toMatchObject({ actor: 'alice' });

    // A move seen live schedules a read of the plan's summary; logging out before it runs drops it,
    // so nothing meets the ended session with a 401 (the last test finds no console error).
    await ui.t.dotplan.skip(planId, 'a', { by: 'test' });
    await drawnNode(page, 'a', 'skipped').waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('Token').waitFor();
    // Longer than the page's 150 ms debounce: a read still scheduled would have gone out by now.
    await page.waitForTimeout(500);
  });

  it('logged no console error on any page', () => {
    expect(ui.problems).toEqual([]);
  });
});
