/**
 * The Admin Panel and the operations console in Chromium against the real system (issue 19):
 * ADMIN edits both option lists and finds them in Add Record and Edit Record, deletes a record of
 * each agency from All Agency Records, resolves a contact request an agency user sent from
 * Settings, sees a failed ingest job in the console and retries it on the queue board, and watches
 * the stats consumer's pending count fall once the stats service is back. An agency user at /admin
 * sees SPEC's access-denied text and no admin request leaves the browser.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, shot, signedIn as signedInAs, signIn, toast } from './helpers.ts';
import { ADMIN, newPerson, startWebStack, type WebStack } from './web-stack.ts';

let web: WebStack;
const police = newPerson('BPS');
const intelligence = newPerson('FIA');
const customs = newPerson('CUS');
const people = { BPS: police, FIA: intelligence, CUS: customs } as const;

beforeAll(async () => {
  web = await startWebStack();
  await registerAll(web, [police, intelligence, customs]);
});

async function asAdmin(): Promise<Page> {
  const { page } = await web.page({});
  await page.goto('/login');
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.waitForURL((url) => url.pathname === '/');
  return page;
}

let serial = 0;
const recordBody = (organization: string) => ({
  incidentNumber: `ADM-${organization}-${Date.now().toString(36)}-${++serial}`,
  suspectName: `Admin Panel Subject ${serial}`,
  suspectDob: '1975-06-07',
  incidentDate: '2025-01-02',
  caseAmount: '250.00',
  sourceOfRecord: 'Police Investigation',
  internationalNexus: false,
});

async function createRecord(page: Page, organization: string) {
  const body = recordBody(organization);
  const created = await page.request.post('/api/records', { data: body });
  expect(created.status()).toBe(201);
  return (await created.json()) as { id: string; incidentNumber: string };
}

/** The options an antd Select offers once opened and narrowed to `text`. */
async function offered(page: Page, label: string, text: string): Promise<string[]> {
  const box = page.getByLabel(label, { exact: true });
  await box.click();
  if (await box.isEditable()) await box.fill(text);
  await page.waitForTimeout(300); // the list opens and filters
  const options = await page.locator('.ant-select-dropdown:visible .ant-select-item-option').allTextContents();
  await page.keyboard.press('Escape');
  return options;
}

describe('Admin Panel', () => {
  it('edits both option lists; Add Record and Edit Record offer the new values', async () => {
    const admin = await asAdmin();
    await admin.goto('/admin');
    const source = admin.getByLabel('Source of Record Options');
    const country = admin.getByLabel('Country Options');
    await expect.poll(async () => (await source.inputValue()).length).toBeGreaterThan(0);
    await expect.poll(async () => (await country.inputValue()).length).toBeGreaterThan(0);
    await source.fill(`${await source.inputValue()}\n\n  Anonymous Tip Line  \n`);
    await country.fill(`${await country.inputValue()}\nSealand\n\n`);
    await admin.getByRole('button', { name: 'Update Options' }).click();
    await toast(admin, 'Country options updated successfully').waitFor();
    await shot(admin, 'admin-panel');

    const officer = await signedInAs(web, police);
    await officer.goto('/records');
    await officer.getByRole('heading', { name: 'Add New Record' }).waitFor();
    expect(await offered(officer, 'Source of Record', 'Anonymous')).toEqual(['Anonymous Tip Line']);

    const record = await createRecord(officer, 'BPS');
    await officer.goto(`/record/${record.id}/edit`);
    await officer.getByRole('heading', { name: 'Edit Record' }).waitFor();
    expect(await offered(officer, 'Source of Record', 'Anonymous')).toEqual(['Anonymous Tip Line']);
    // Edit Record's country list is the server's (SPEC §9); it shows when there is a nexus.
    await officer.getByText('Yes', { exact: true }).click();
    expect(await offered(officer, 'Country', 'Sealand')).toEqual(['Sealand']);
  });

  it('deletes a record of each agency from All Agency Records, after confirmation', async () => {
    const made: Record<string, { id: string; incidentNumber: string }> = {};
    for (const [organization, person] of Object.entries(people)) {
      const page = await signedInAs(web, person);
      made[organization] = await createRecord(page, organization);
      await page.close();
    }
    const admin = await asAdmin();
    await admin.goto('/admin');
    const table = admin.locator('.ant-card').filter({ hasText: 'All Agency Records' });
    for (const [organization, record] of Object.entries(made)) {
      const row = table.locator('tr').filter({ hasText: record.incidentNumber });
      await row.waitFor();
      await expect.poll(() => row.locator('.ant-tag').first().textContent()).toBe(organization);
      await row.getByRole('button', { name: 'Delete' }).click();
      await admin.getByRole('button', { name: 'Delete', exact: true }).last().click();
      await toast(admin, 'Record deleted successfully').waitFor();
      await row.waitFor({ state: 'detached' });
      const gone = await admin.request.get(`/api/records/${record.id}`);
      expect(gone.status(), organization).toBe(404);
    }
  });

  it('resolves a contact request an agency user sent from Settings', async () => {
    const officer = await signedInAs(web, customs);
    await officer.goto('/settings');
    const subject = `Access to the FIA view ${Date.now()}`;
    await officer.getByLabel('Subject').fill(subject);
    await officer.getByLabel('Message').fill('Please let me see the linked FIA records.');
    await officer.getByRole('button', { name: 'Send Message' }).click();
    await toast(officer, 'Your message has been sent to the administrator.').waitFor();

    const admin = await asAdmin();
    await admin.goto('/admin');
    const row = admin.locator('tr').filter({ hasText: subject });
    await row.click();
    await admin.getByText('Please let me see the linked FIA records.').waitFor();
    await row.getByRole('button', { name: 'Mark Resolved' }).click();
    await row.getByText('Resolved', { exact: true }).waitFor();
    const inbox = await (await admin.request.get('/api/admin/contact-requests?status=resolved')).json();
    expect(inbox.items.map((r: { subject: string }) => r.subject)).toContain(subject);
  });

  it('tells an agency user access is denied; no admin request leaves the browser', async () => {
    const officer = await signedInAs(web, intelligence);
    const asked: string[] = [];
    officer.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await officer.goto('/admin');
    await officer.getByText('Access denied. Admin privileges required.').waitFor();
    await officer.goto('/admin/queues');
    expect(await officer.content()).toContain('Access denied. Admin privileges required.');
    expect(asked.filter((p) => p.startsWith('/api/admin') || p.startsWith('/mf/admin'))).toEqual([]);
  });
});

describe('operations console', () => {
  let queue: Queue;
  let connection: Redis;
  beforeAll(() => {
    connection = new Redis(web.stack.t.redisUrl, { maxRetriesPerRequest: null });
    queue = new Queue(web.stack.opsConfig.OPS_QUEUES[0] as string, {
      connection,
      prefix: web.stack.opsConfig.OPS_QUEUE_PREFIX,
    });
  });
  afterAll(async () => {
    await queue.close();
    connection.disconnect();
  });

  it('shows a failed ingest job with its reason; the queue board retries it', async () => {
    // An upload job whose file is gone: the worker fails it for good.
    const jobId = `e2e-${Date.now()}`;
    await queue.add('upload', { uploadId: `gone-${jobId}`, fileKey: 'none', uploader: {} }, { jobId, attempts: 1 });
    await expect.poll(() => queue.getJobState(jobId), { timeout: 20_000 }).toBe('failed');

    const admin = await asAdmin();
    await admin.goto('/admin/operations');
    const failures = admin.getByRole('region', { name: 'Queues' });
    await failures.getByText(`upload gone-${jobId} is not stored`).waitFor({ timeout: 15_000 });
    await shot(admin, 'admin-operations');

    const [board] = await Promise.all([
      admin.context().waitForEvent('page'),
      admin.getByRole('link', { name: 'Open queue board' }).click(),
    ]);
    await board.waitForLoadState();
    await board.goto(`/admin/queues/queue/${queue.name}?status=failed`);
    await board.getByText(jobId).first().waitFor({ timeout: 15_000 });
    await shot(board, 'admin-queue-board');
    // The job's card: its first action is Retry (an icon; bull-board asks to confirm job actions).
    const card = board.getByText(jobId, { exact: true }).locator('xpath=ancestor::*[.//button][1]');
    await card.locator('button').first().click();
    const confirm = board.getByRole('button', { name: 'Confirm' });
    if (
      await confirm.waitFor({ timeout: 3_000 }).then(
        () => true,
        () => false,
      )
    )
      await confirm.click();
    await expect
      .poll(async () => (await queue.getJob(jobId))?.attemptsMade ?? 0, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(2);
  });

  it('shows the stats consumer falling behind while stats is down and catching up once it is back', async () => {
    const admin = await asAdmin();
    await admin.goto('/admin/operations');
    const consumers = admin.getByRole('region', { name: 'Consumers' });
    const statsRow = consumers.locator('tr').filter({ hasText: web.stack.recordsStream }).filter({ hasText: 'stats' });
    await statsRow.waitFor();
    const pending = () => statsRow.locator('td').nth(2).textContent();
    await expect.poll(pending).toBe('0');

    await web.stack.stopStats();
    try {
      const officer = await signedInAs(web, police);
      for (let i = 0; i < 3; i++) await createRecord(officer, 'BPS');
      await expect.poll(pending, { timeout: 20_000 }).toBe('3');
      await admin.getByRole('region', { name: 'Services' }).getByText('Not ready').waitFor();
      await shot(admin, 'admin-operations-stats-down');
    } finally {
      await web.stack.startStats();
    }
    await expect.poll(pending, { timeout: 20_000 }).toBe('0');
  });
});
