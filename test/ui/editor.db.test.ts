/**
 * The DOT editor and the revisions page in Chromium (no worker: the plan stays as it was made): a
 * cycle typed in shows dotplan's CYCLE diagnostic as lint on its line and cannot be applied; the
 * fixed text applies as revision 2, which the history shows; an edit made from an older revision
 * that clashes with a later one shows the conflict on its node's line; diffs and a revert work; no
 * page logs an error.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawnNode, hasChromium, openUi, SCREENSHOTS, type UiUnderTest } from './harness.js';

const PLAN = `digraph edit_me {
  label="An edited plan"
  node [type=function]
  a [toolCode=template toolInput="x"]
  b [toolCode=template toolInput="y"]
  a -> b
}`;

/** The text before its closing brace, with `lines` added there. */
const withLines = (dot: string, ...lines: string[]) => dot.replace(/\}\s*$/, `${lines.map((l) => `  ${l}\n`).join('')}}\n`);
/** The 1-based line of the first line that contains `text`. */
const lineOf = (dot: string, text: string) => dot.split('\n').findIndex((l) => l.includes(text)) + 1;

/** Replaces the editor's whole text as a person would: select all, then type (paste) the new one. */
async function typeText(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

/** The editor's line `n` (1-based; the document is short, so every line is rendered). */
const editorLine = (page: Page, n: number) => page.locator('.cm-content > .cm-line').nth(n - 1);

describe.skipIf(!hasChromium)('the DOT editor in Chromium', () => {
  let ui: UiUnderTest;
  let planId: string;
  beforeAll(async () => {
    ui = await openUi();
    planId = (await ui.call<{ id: string }>('POST', '/v1/plans', { dot: PLAN })).id;
  });
  afterAll(async () => {
    await ui?.close();
  });

  it('marks a cycle on its line as you type, refuses to apply it, then applies the fixed text as the next revision', async () => {
    // The plan's page, open in another tab, draws the new revision once it lands.
    const planPage = await ui.page(`#/plans/${planId}`);
    await drawnNode(planPage, 'b').waitFor();
    const page = await ui.page(`#/plans/${planId}/edit`);
    await page.locator('.cm-content', { hasText: 'revision="1"' }).waitFor();
    const original = await ui.call<string>('GET', `/v1/plans/${planId}/dot`);

    const cyclic = withLines(original, 'b -> a;');
    const { diagnostics } = await ui.call<{ diagnostics: Array<{ code: string; line: number }> }>('POST', '/v1/validate', { dot: cyclic });
    const cycle = diagnostics.find((d) => d.code === 'CYCLE')!;
    expect(cycle.line).toBeGreaterThan(0);
    await typeText(page, cyclic);
    await editorLine(page, cycle.line).locator('.cm-lintRange-error').waitFor();
    await page.locator('.cm-gutter-lint .cm-lint-marker-error').first().waitFor();
    await page.locator('.problems.diagnostics', { hasText: 'CYCLE' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'editor-cycle.png') });

    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.locator('.outcome.invalid', { hasText: 'does not validate' }).waitFor();
    expect((await ui.call<{ plan: { revision: number } }>('GET', `/v1/plans/${planId}`)).plan.revision).toBe(1);

    await typeText(page, withLines(original, 'c [type=function toolCode=template toolInput="z"];', 'b -> c;'));
    await page.locator('.problems.diagnostics', { hasText: 'No problems found.' }).waitFor();
    expect(await page.locator('.cm-lintRange-error').count()).toBe(0);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.locator('.outcome.applied', { hasText: 'Applied: revision 2 (2 changes)' }).waitFor();
    await page.locator('.revision-list li[data-revision="2"]').waitFor();
    // The editor now holds the plan as it is: made from revision 2.
    await page.locator('.cm-content', { hasText: 'revision="2"' }).waitFor();
    await drawnNode(planPage, 'c', 'pending').waitFor();
    await planPage.locator('h1 + p', { hasText: 'revision 2' }).waitFor();
    await planPage.close();
    await page.close();
  });

  it('shows the conflict of an edit made from an older revision, in a panel and on its node’s line', async () => {
    const page = await ui.page(`#/plans/${planId}/edit`);
    await page.locator('.cm-content', { hasText: 'revision="2"' }).waitFor();
    const older = await ui.call<string>('GET', `/v1/plans/${planId}/dot`);
    // Someone else changes c's input meanwhile: revision 3.
    await ui.call('POST', `/v1/plans/${planId}/revisions`, { dot: older.replace('toolInput="z"', 'toolInput="theirs"') });
    await page.getByText('revision 3 exists now').waitFor();

    const mine = older.replace('toolInput="z"', 'toolInput="mine"');
    await typeText(page, mine);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    const conflicts = page.locator('.problems.conflicts');
    await conflicts.getByText('node c · toolInput').waitFor();
    expect(await conflicts.textContent()).toContain('"theirs"');
    await page.locator('.outcome.conflict', { hasText: '1 conflict' }).waitFor();
    await editorLine(page, lineOf(mine, 'toolInput="mine"')).locator('.cm-lintRange-error').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'editor-conflict.png') });
    expect((await ui.call<{ plan: { revision: number } }>('GET', `/v1/plans/${planId}`)).plan.revision).toBe(3);
    await page.close();
  });

  it('shows what a revision changed and reverts to an earlier one', async () => {
    const page = await ui.page(`#/plans/${planId}/revisions`);
    const second = page.locator('.revision-list li[data-revision="2"]');
    await second.getByRole('link', { name: 'What it changed' }).click();
    await page.locator('.diff .diff-add', { hasText: '+ node c' }).waitFor();
    await page.locator('.diff .diff-add', { hasText: '+ edge b -> c' }).waitFor();

    const first = page.locator('.revision-list li[data-revision="1"]');
    await first.getByRole('button', { name: 'Revert to this…' }).click();
    await first.getByRole('button', { name: 'Yes, revert to 1' }).click();
    await page.getByText('Reverted to revision 1: revision 4').waitFor();
    await page.locator('.revision-list li[data-revision="4"]').waitFor();
    const nodes = await ui.call<Array<{ id: string }>>('GET', `/v1/plans/${planId}/nodes`);
    expect(nodes.map((n) => n.id).sort()).toEqual(['a', 'b']);
    await page.close();
  });

  it('modifies a plan under review from the inbox, and rejects one with a reason', async () => {
    const modified = (await ui.call<{ id: string }>('POST', '/v1/plans', { template: 'approval', values: { item: 'a desk' }, review: true })).id;
    const rejected = (await ui.call<{ id: string }>('POST', '/v1/plans', { template: 'approval', values: { item: 'a boat' }, review: true })).id;
    const inbox = await ui.page('#/inbox');
    await inbox.locator(`.inbox-entry.review[data-plan="${modified}"]`).getByRole('link', { name: 'Modify…' }).click();
    await inbox.getByRole('heading', { name: 'Modify the plan under review' }).waitFor();
    await inbox.locator('.cm-content', { hasText: 'revision="1"' }).waitFor();
    const dot = await ui.call<string>('GET', `/v1/plans/${modified}/dot`);
    await typeText(inbox, dot.replace('label="Approval: a desk for a colleague"', 'label="Approval: a standing desk for a colleague"'));
    await inbox.getByRole('button', { name: 'Apply the modification' }).click();
    await inbox.locator('.outcome.applied', { hasText: 'revision 2' }).waitFor();
    const after = await ui.call<{ plan: { status: string; title: string; revision: number } }>('GET', `/v1/plans/${modified}`);
    expect(after.plan).toMatchObject({ status: 'awaiting_review', revision: 2 });

    await inbox.goto(`${ui.base}/#/inbox`);
    const entry = inbox.locator(`.inbox-entry.review[data-plan="${rejected}"]`);
    await entry.getByRole('button', { name: 'Reject' }).waitFor();
    expect(await entry.getByRole('button', { name: 'Reject' }).isDisabled()).toBe(true);
    await entry.getByPlaceholder('Reason to reject').fill('we have boats enough');
    await entry.getByRole('button', { name: 'Reject' }).click();
    await entry.waitFor({ state: 'detached' });
    const events = await ui.t.dotplan.events.list({ planId: rejected });
    expect(events.find((e) => e.to === 'rejected')).toMatchObject({ reason: 'we have boats enough' });
    await inbox.close();
  });

  it('logged no console error on any page', () => {
    expect(ui.problems).toEqual([]);
  });
});
