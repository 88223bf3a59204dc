/**
 * The dashboard in Chromium against the real system (issue 7): an agency without records sees
 * zeros and the empty states; after records in three countries the cards, the map's colours, its
 * tooltips and the top-country list agree with them; another agency's dashboard does not change.
 * Generate Report (no model configured: the template writes it) shows the report as elements, lists
 * it under Earlier Reports and serves its Markdown file, for that agency only.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { hold, registerAll, shot, signedIn as signedInAs, toast } from './helpers.ts';
import { newPerson, startWebStack, type WebStack } from './web-stack.ts';

let web: WebStack;
const police = newPerson('BPS');
const intelligence = newPerson('FIA');
const customs = newPerson('CUS');
const year = new Date().getUTCFullYear();

beforeAll(async () => {
  web = await startWebStack();
  await registerAll(web, [police, intelligence, customs]);
});

const signedIn = (person: ReturnType<typeof newPerson>) => signedInAs(web, person);

const statText = (page: Page, testId: string) => page.getByTestId(testId).textContent();

/** The map's filled country outlines: fill colour → the largest outline of that colour. */
async function filledShapes(page: Page) {
  return page.getByTestId('world-map').evaluate((map) => {
    const largest = new Map<string, { x: number; y: number; area: number }>();
    for (const path of map.querySelectorAll('svg path')) {
      const fill = path.getAttribute('fill') ?? '';
      const box = path.getBoundingClientRect();
      const area = box.width * box.height;
      if (area > (largest.get(fill)?.area ?? 0)) {
        largest.set(fill, { x: box.x + box.width / 2, y: box.y + box.height / 2, area });
      }
    }
    return [...largest].map(([fill, at]) => ({ fill, ...at }));
  });
}

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * Where the map draws: the box around every country outline (the world, Antarctica included), the
 * map's own box, the legend's box and the card's content box, in page pixels.
 */
async function mapLayout(page: Page) {
  await page.getByTestId('map-legend').waitFor();
  return page.getByTestId('world-map').evaluate((map) => {
    const box = (r: DOMRect): Box => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
    const world = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
    for (const path of map.querySelectorAll('svg path')) {
      const r = path.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      world.left = Math.min(world.left, r.left);
      world.top = Math.min(world.top, r.top);
      world.right = Math.max(world.right, r.right);
      world.bottom = Math.max(world.bottom, r.bottom);
    }
    const legend = document.querySelector('[data-testid="map-legend"]') as HTMLElement;
    const card = map.closest('.ant-card-body') as HTMLElement;
    const style = getComputedStyle(card);
    const cardBox = card.getBoundingClientRect();
    return {
      world,
      map: box(map.getBoundingClientRect()),
      legend: box(legend.getBoundingClientRect()),
      legendOverflows: legend.scrollWidth > legend.clientWidth,
      content: {
        left: cardBox.left + Number.parseFloat(style.paddingLeft),
        right: cardBox.right - Number.parseFloat(style.paddingRight),
      },
      // Whether anything in the map's card (a tooltip left behind included) sticks out of it.
      cardOverflows: card.scrollWidth > card.clientWidth,
    };
  });
}

const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** The whole world inside the map's box, the legend beside none of it and inside the card. */
async function expectWholeMapAndLegend(page: Page, width: number) {
  const layout = await mapLayout(page);
  const where = `at ${width} px: ${JSON.stringify(layout)}`;
  // The world, Antarctica included, drawn inside the map's box (not cut off at any edge).
  expect(layout.world.left, where).toBeGreaterThanOrEqual(layout.map.left - 0.5);
  expect(layout.world.right, where).toBeLessThanOrEqual(layout.map.right + 0.5);
  expect(layout.world.top, where).toBeGreaterThanOrEqual(layout.map.top - 0.5);
  expect(layout.world.bottom, where).toBeLessThanOrEqual(layout.map.bottom + 0.5);
  // It uses the box: most of the width (no world shrunk into a corner).
  expect(layout.world.right - layout.world.left, where).toBeGreaterThan(0.85 * (layout.map.right - layout.map.left));
  // Centred across.
  expect(Math.abs(layout.world.left - layout.map.left - (layout.map.right - layout.world.right)), where).toBeLessThan(
    4,
  );
  // The legend covers none of the world and fits the card.
  expect(overlaps(layout.legend, layout.world), where).toBe(false);
  expect(overlaps(layout.legend, layout.map), where).toBe(false);
  expect(layout.legendOverflows, where).toBe(false);
  expect(layout.legend.left, where).toBeGreaterThanOrEqual(layout.content.left - 0.5);
  expect(layout.legend.right, where).toBeLessThanOrEqual(layout.content.right + 0.5);
  expect(layout.cardOverflows, where).toBe(false);
}

describe('the dashboard', () => {
  it('shows zeros and empty states, then the police records in three countries; FIA’s stays empty', async () => {
    const page = await signedIn(police);
    await page.getByRole('heading', { name: 'Bermuda Police Service Records Overview' }).waitFor();
    await page.getByText('No records found').waitFor();
    await page.getByText('No incidents with an international nexus yet.').waitFor();
    // The figures are a query of their own: the lists above can show before them.
    await expect.poll(() => statText(page, 'stat-total')).toBe('Total Records0');
    expect(await statText(page, 'stat-seized')).toBe(`Total Seized Amount (${year})$0.00`);
    await page.getByTestId('world-map').locator('svg path').first().waitFor();
    await shot(page, 'dashboard-empty');

    // Brazil 3, Australia 2, China 1 (and one record at home), as the police record them.
    const origin = new URL(page.url()).origin;
    let n = 0;
    for (const [country, count] of [
      ['Brazil', 3],
      ['Australia', 2],
      ['China', 1],
      ['Bermuda', 1],
    ] as const) {
      for (let i = 0; i < count; i++) {
        const created = await page.request.post('/api/records', {
          headers: { origin },
          data: {
            incidentNumber: `DASH-${Date.now().toString(36)}-${n++}`,
            suspectName: `Dashboard Person ${n}`,
            suspectDob: '1970-01-01',
            incidentDate: `${year}-02-03`,
            caseAmount: '1000',
            seizedAmount: '250.5',
            confiscatedAmount: '0',
            sourceOfRecord: 'Police Investigation',
            internationalNexus: country !== 'Bermuda',
            country,
            cyberAssisted: false,
          },
        });
        expect(created.status()).toBe(201);
      }
    }
    // The figures follow the events: reload until the stats service has counted all seven.
    for (let tries = 0; ; tries++) {
      await page.goto('/');
      await page.getByTestId('stat-total').getByText(/\d/).waitFor();
      if ((await statText(page, 'stat-total')) === 'Total Records7') break;
      if (tries > 40) throw new Error(`the dashboard says ${await statText(page, 'stat-total')}`);
      await page.waitForTimeout(250);
    }
    expect(await statText(page, 'stat-month')).toBe('This Month7');
    expect(await statText(page, 'stat-international')).toBe('International Cases6');
    expect(await statText(page, 'stat-seized')).toBe(`Total Seized Amount (${year})$1,753.50`);
    expect(await page.getByTestId('top-country').allTextContents()).toEqual(['Brazil 3', 'Australia 2', 'China 1']);
    expect(await page.locator('tbody tr.ant-table-row').count()).toBe(5);

    // The map: Brazil red (the maximum), Australia and China lighter, each tooltip its count.
    await page.getByText('Incidents (max)').waitFor();
    await page.getByText('No incidents').waitFor();
    let shapes = await filledShapes(page);
    for (let tries = 0; !shapes.some((s) => /^(#ff0000|rgb\(255, ?0, ?0\))$/i.test(s.fill)) && tries < 20; tries++) {
      await page.waitForTimeout(250);
      shapes = await filledShapes(page);
    }
    const tooltips = new Map<string, string>();
    for (const s of shapes.filter((x) => !/^(#f8f9fa|none|)$/i.test(x.fill))) {
      await page.mouse.move(s.x, s.y);
      const tip = page
        .locator('div')
        .filter({ hasText: /^[^<>]+: \d+ incidents?$/ })
        .last();
      await tip.waitFor({ timeout: 5_000 }).catch(() => undefined);
      tooltips.set(s.fill, (await tip.textContent().catch(() => '')) ?? '');
    }
    const said = [...tooltips.values()].filter(Boolean).sort();
    expect(said).toEqual(
      expect.arrayContaining(['Australia: 2 incidents', 'Brazil: 3 incidents', 'China: 1 incident']),
    );
    await shot(page, 'dashboard');

    // The whole world, Antarctica included, and the legend beside it: on a desktop, then on a phone.
    await expectWholeMapAndLegend(page, 1280);
    await page.setViewportSize({ width: 390, height: 844 });
    // The map follows the window's resize: its drawing as wide as its box again.
    await page.waitForFunction(() => {
      const map = document.querySelector('[data-testid="world-map"]');
      const drawing = map?.querySelector('svg');
      return !!map && !!drawing && Math.abs(drawing.getBoundingClientRect().width - map.clientWidth) < 1;
    });
    await expectWholeMapAndLegend(page, 390);
    await shot(page, 'dashboard-phone');

    // Another agency sees none of it.
    const other = await signedIn(intelligence);
    await other.getByRole('heading', { name: 'Financial Intelligence Agency Records Overview' }).waitFor();
    await other.getByText('No records found').waitFor();
    await expect.poll(() => statText(other, 'stat-total')).toBe('Total Records0');
    expect(await other.getByTestId('top-country').count()).toBe(0);
  });

  it('generates a report (Markdown as elements, the request’s HTML as text), lists it and serves its file; Customs sees none', async () => {
    const page = await signedIn(police);
    await page.getByRole('heading', { name: 'Bermuda Police Service Records Overview' }).waitFor();
    const origin = new URL(page.url()).origin;
    const stamp = Date.now().toString(36);
    for (const [i, country] of ['Brazil', 'Bermuda'].entries()) {
      const created = await page.request.post('/api/records', {
        headers: { origin },
        data: {
          incidentNumber: `REPORT-${stamp}-${i}`,
          suspectName: `Report Person ${i}`,
          suspectDob: '1970-01-01',
          incidentDate: `${year}-02-03`,
          caseAmount: '1000',
          seizedAmount: '0',
          confiscatedAmount: '0',
          sourceOfRecord: 'Police Investigation',
          internationalNexus: country !== 'Bermuda',
          country,
          cyberAssisted: false,
        },
      });
      expect(created.status()).toBe(201);
    }
    // The police's records (this test's two, and any an earlier test made) as the records service counts them.
    const listed = await page.request.get('/api/records?limit=1');
    expect(listed.status()).toBe(200);
    const total = Number(listed.headers()['x-total-count']);
    expect(total).toBeGreaterThanOrEqual(2);
    // The figures follow the events: reload until the stats service has counted them all.
    for (let tries = 0; ; tries++) {
      await page.goto('/');
      await page.getByTestId('stat-total').getByText(/\d/).waitFor();
      if ((await statText(page, 'stat-total')) === `Total Records${total}`) break;
      if (tries > 40) throw new Error(`the dashboard says ${await statText(page, 'stat-total')}`);
      await page.waitForTimeout(250);
    }

    const card = page.getByTestId('generate-report');
    const earlier = page.getByTestId('earlier-reports');
    await earlier.getByText('No reports yet').waitFor();
    const parameters = 'Focus on <b>fraud</b>';
    await card.getByLabel('Parameters (optional)').fill(parameters);
    const today = () =>
      page.evaluate(() =>
        new Intl.DateTimeFormat('en-US', { year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date()),
      );
    const days = [await today()];

    // Generate: the request is held at the browser until the running state is seen (no race).
    const started = await hold(page, '**/api/generate-report*');
    await card.getByRole('button', { name: 'Generate Report' }).click();
    await card.getByRole('button', { name: 'Generating Report...' }).waitFor();
    expect(await card.getByRole('button', { name: 'Generating Report...' }).isDisabled()).toBe(true);
    const progress = card.getByRole('status').filter({ hasText: 'Generating report using AI analysis...' });
    await progress.waitFor();
    expect(await progress.getByTestId('report-stage').textContent()).toBe('Queued');
    expect(await card.getByLabel('Parameters (optional)').isDisabled()).toBe(true);
    await shot(page, 'dashboard-report-running');
    // The job as the page reads it: accepted (202), then followed until it has the report.
    const accepted = page.waitForResponse((r) => r.url().includes('/api/generate-report'));
    const completed = page.waitForResponse(
      async (r) => r.url().includes('/api/reports/jobs/') && r.ok() && (await r.json()).state === 'completed',
    );
    await started.release();
    expect((await accepted).status()).toBe(202);
    const { jobId } = (await (await accepted).json()) as { jobId: string };
    const job = (await (await completed).json()) as { jobId: string; result: { id: string; report: string } };
    expect(job.jobId).toBe(jobId);

    // The report, rendered from its Markdown.
    await toast(page, 'Report generated successfully').waitFor();
    const shown = card.getByTestId('generated-report');
    await shown.getByRole('heading', { name: 'Generated Report' }).waitFor();
    const text = shown.getByTestId('report-text');
    await text.locator('h1').waitFor();
    expect(await text.locator('h1').allTextContents()).toEqual([
      'Risk assessment report: Bermuda Police Service (BPS)',
    ]);
    expect(
      await text
        .locator('li')
        .filter({ hasText: /^Records: / })
        .allTextContents(),
    ).toEqual([`Records: ${total}`]);
    const notice = text.locator('blockquote');
    expect(await notice.count()).toBe(1);
    expect(await notice.textContent()).toContain('Written from a template, not by AI.');
    expect(await notice.textContent()).toContain('No AI model is configured');
    expect(await notice.locator('strong').textContent()).toBe('Written from a template, not by AI.');
    expect(await text.locator('table').count()).toBeGreaterThanOrEqual(2);
    expect(await text.locator('table').first().locator('th').first().textContent()).toBe('Month');
    expect(
      await text
        .locator('table')
        .filter({ has: page.locator('th', { hasText: /^Country$/ }) })
        .locator('td')
        .first()
        .textContent(),
    ).toBe('Brazil');
    // The request's HTML is text: no <b> element anywhere came from it.
    expect(await text.textContent()).toContain(parameters);
    expect(await text.locator('b').count()).toBe(0);
    expect(await page.locator('b', { hasText: 'fraud' }).count()).toBe(0);
    expect(await shown.getByTestId('report-meta').textContent()).toContain(
      'Written from a template (no AI model is configured)',
    );
    expect(await card.getByRole('button', { name: 'Generate Report' }).isEnabled()).toBe(true);
    expect(await card.getByText('Generating report using AI analysis...').count()).toBe(0);

    // Under Earlier Reports: today's, by this user, from the template, with the request as text.
    const list = await page.request.get('/api/reports');
    expect(list.status()).toBe(200);
    const { items, total: reports } = (await list.json()) as { items: Array<{ id: string }>; total: number };
    expect(reports).toBe(1);
    const id = items[0]?.id ?? '';
    expect(id).toBe(job.result.id);
    const row = earlier.locator('tbody tr.ant-table-row');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    days.push(await today());
    const cells = await row.locator('td').allTextContents();
    expect(days.some((day) => cells[0]?.startsWith(`${day}, `))).toBe(true);
    expect(cells.slice(1)).toEqual([police.name, 'Template', parameters]);
    expect(await earlier.locator('b').count()).toBe(0);
    await shot(page, 'dashboard-report');

    // Download Markdown: the report's file, text/markdown, the very text shown.
    const download = shown.getByRole('link', { name: 'Download Markdown' });
    const href = await download.getAttribute('href');
    expect(href).toBe(`/api/reports/${id}/markdown`);
    expect(await download.getAttribute('download')).not.toBeNull();
    const stored = await page.request.get(`/api/reports/${id}`);
    expect(stored.status()).toBe(200);
    const report = (await stored.json()) as { report: string; parameters: string | null; model: string };
    expect(report).toMatchObject({ parameters, model: 'template' });
    expect(report.report).toContain(`\n- Records: ${total}\n`);
    const file = await page.request.get(href ?? '');
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toMatch(/^text\/markdown\b/);
    expect(await file.text()).toBe(report.report);
    expect(report.report).toBe(job.result.report);

    // Customs: no earlier reports, and the police's report is not theirs to read.
    const other = await signedIn(customs);
    await other.getByRole('heading', { name: 'Customs Records Overview' }).waitFor();
    await other.getByTestId('earlier-reports').getByText('No reports yet').waitFor();
    expect(await other.getByTestId('earlier-reports').locator('tbody tr.ant-table-row').count()).toBe(0);
    expect(((await (await other.request.get('/api/reports')).json()) as { total: number }).total).toBe(0);
    expect((await other.request.get(`/api/reports/${id}/markdown`)).status()).toBe(404);
  });
});
