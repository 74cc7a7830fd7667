/**
 * The plan page, the inbox and a new plan in Chromium, against a server whose worker runs the plans:
 * nodes change colour live without the page reloading, a question answered from the inbox turns its
 * node done on the plan page open beside it, a plan made for review starts once approved in the UI,
 * and no page logs an error.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../../src/worker/worker.js';
import { drawnNode, hasChromium, openUi, SCREENSHOTS, type UiUnderTest } from './harness.js';

const CHAIN = `digraph greet {
  label="Greet the team"
  node [type=function]
  hello [label="Say hello" toolCode=template toolInput="{\\"template\\": \\"hello\\"}"]
  world [label="Add the team" toolCode=template toolInput="{\\"template\\": \\"{{nodes.hello.output}} team\\"}"]
  hello -> world
}`;

const QUESTION = `digraph ask {
  label="Ask before publishing"
  draft [type=function toolCode=template toolInput="{\\"template\\": \\"a draft\\"}"]
  publish [type=confirm question="Publish the draft?" options="yes,no"]
  announce [type=function toolCode=template toolInput="{\\"template\\": \\"published\\"}"]
  draft -> publish -> announce
}`;

interface Created {
  id: string;
}

describe.skipIf(!hasChromium)('the plan page and the inbox in Chromium', () => {
  let ui: UiUnderTest;
  let worker: Worker | undefined;
  beforeAll(async () => {
    ui = await openUi();
  });
  afterAll(async () => {
    await worker?.stop();
    await ui?.close();
  });
  const startWorker = () => {
    worker ??= ui.t.dotplan.worker().start();
  };

  it('recolours the nodes of the open plan page as a worker runs the plan, without reloading the page or the drawing', async () => {
    const plan = await ui.call<Created>('POST', '/v1/plans', { dot: CHAIN });
    const page = await ui.page(`#/plans/${plan.id}`);
    await drawnNode(page, 'hello', 'ready').waitFor();
    expect(await drawnNode(page, 'world').getAttribute('class')).toContain('status-pending');
    // Marks on the document and on the drawing: a reload or a redraw would lose them.
    await page.evaluate(() => {
      (globalThis as unknown as { dotplanMarker: string }).dotplanMarker = 'same document';
    });
    await page
      .locator('.drawing svg')
      .evaluate((svg) => (svg as unknown as { setAttribute(n: string, v: string): void }).setAttribute('data-marker', 'same drawing'));

    startWorker();
    await drawnNode(page, 'world', 'done').waitFor();
    expect(await drawnNode(page, 'hello').getAttribute('class')).toContain('status-done');
    expect(await page.evaluate(() => (globalThis as unknown as { dotplanMarker?: string }).dotplanMarker)).toBe('same document');
    expect(await page.locator('.drawing svg[data-marker="same drawing"]').count()).toBe(1);
    // The plan's own status follows too, and the colours are the renderer's for done.
    await page.locator('h1 .badge.status-completed').waitFor();
    expect(await drawnNode(page, 'world').locator('path, polygon').first().getAttribute('fill')).toBe('#dcfce7');

    // The side panel shows the selected node's output and events.
    await drawnNode(page, 'world').click();
    await page.locator('.node-panel', { hasText: 'hello team' }).waitFor();
    expect(await page.locator('.node-panel .event-list li').count()).toBeGreaterThanOrEqual(3);
    await page.close();
  });

  it('answers a question from the inbox, and the plan page open beside it shows the node done', async () => {
    startWorker();
    const plan = await ui.call<Created>('POST', '/v1/plans', { dot: QUESTION });
    const planPage = await ui.page(`#/plans/${plan.id}?node=publish`);
    await drawnNode(planPage, 'publish', 'awaiting_input').waitFor();
    await planPage.screenshot({ path: join(SCREENSHOTS, 'plan-page.png') });

    const inbox = await ui.page('#/inbox');
    const entry = inbox.locator(`.inbox-entry[data-plan="${plan.id}"]`);
    await entry.getByText('Publish the draft?').waitFor();
    await inbox.screenshot({ path: join(SCREENSHOTS, 'inbox.png') });
    await entry.getByRole('button', { name: 'yes', exact: true }).click();
    await entry.waitFor({ state: 'detached' });

    await drawnNode(planPage, 'publish', 'done').waitFor();
    await drawnNode(planPage, 'announce', 'done').waitFor();
    await planPage
      .locator('.node-panel', { hasText: 'yes' })
      .getByRole('heading', { name: /publish/ })
      .waitFor();
    const node = await ui.call<{ answer: string; status: string }>('GET', `/v1/plans/${plan.id}/nodes/publish`);
    expect(node).toMatchObject({ status: 'done', answer: 'yes' });
    await inbox.close();
    await planPage.close();
  });

  it('creates a plan for review from a template form, and approving it in the inbox starts it', async () => {
    startWorker();
    const page = await ui.page('#/new?template=approval');
    await page.getByLabel('item (required)').fill('a new laptop');
    expect(await page.getByLabel('requester').inputValue()).toBe('a colleague');
    await page.getByLabel('Wait for a review before anything runs').check();
    await page.getByRole('button', { name: 'Create the plan' }).click();
    await page.locator('h1 .badge.status-awaiting_review').waitFor();
    const id = /#\/plans\/([^?/]+)/.exec(page.url())?.[1];
    expect(id).toBeDefined();
    expect(await page.locator('h1').textContent()).toContain('a new laptop');
    expect(await drawnNode(page, 'request').getAttribute('class')).toContain('status-pending');

    const inbox = await ui.page('#/inbox');
    const entry = inbox.locator(`.inbox-entry.review[data-plan="${id}"]`);
    await entry.getByRole('button', { name: 'Approve' }).click();
    await entry.waitFor({ state: 'detached' });

    // The plan page, still open, shows the plan running and its first node run by the worker.
    await page.locator('h1 .badge.status-running').waitFor();
    await drawnNode(page, 'request', 'done').waitFor();
    const summary = await ui.call<{ plan: { status: string } }>('GET', `/v1/plans/${id}`);
    expect(summary.plan.status).toBe('running');
    await inbox.close();
    await page.close();
  });

  it('lists root plans live, filters them by status and expands a plan to its tree', async () => {
    const page = await ui.page('#/plans');
    await page.locator('table.plans tbody tr').first().waitFor();
    const before = await page.locator('table.plans tbody tr[data-plan]').count();
    const plan = await ui.call<Created>('POST', '/v1/plans', { dot: CHAIN.replace('Greet the team', 'A plan made while the list is open') });
    await page.locator(`tr[data-plan="${plan.id}"]`).waitFor();
    expect(await page.locator('table.plans tbody tr[data-plan]').count()).toBe(before + 1);
    await page.locator(`tr[data-plan="${plan.id}"] .badge.status-completed`).waitFor();

    await page.getByLabel('Status').selectOption('awaiting_review');
    await page.getByText('No plans with status awaiting_review.').waitFor();
    await page.getByLabel('Status').selectOption('');
    const row = page.locator(`tr[data-plan="${plan.id}"]`);
    await row.getByRole('button', { name: 'show' }).click();
    await page.getByText('No child plans.').waitFor();
    await page.close();
  });

  it('logged no console error on any page', () => {
    expect(ui.problems).toEqual([]);
  });
});
