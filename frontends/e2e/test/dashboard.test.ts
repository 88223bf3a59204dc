/**
 * The dashboard in Chromium against the real system (issue 7): an agency without records sees
 * zeros and the empty states; after records in three countries the cards, the map's colours, its
 * tooltips and the top-country list agree with them; another agency's dashboard does not change.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerAll, shot, signedIn as signedInAs } from './helpers.ts';
import { newPerson, startWebStack, type WebStack } from './web-stack.ts';

let web: WebStack;
const police = newPerson('BPS');
const intelligence = newPerson('FIA');
const year = new Date().getUTCFullYear();

beforeAll(async () => {
  web = await startWebStack();
  await registerAll(web, [police, intelligence]);
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

describe('the dashboard', () => {
  it('shows zeros and empty states, then the police records in three countries; FIA’s stays empty', async () => {
    const page = await signedIn(police);
    await page.getByRole('heading', { name: 'Bermuda Police Service Records Overview' }).waitFor();
    await page.getByText('No records found').waitFor();
    await page.getByText('No incidents with an international nexus yet.').waitFor();
    expect(await statText(page, 'stat-total')).toBe('Total Records0');
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

    // Another agency sees none of it.
    const other = await signedIn(intelligence);
    await other.getByRole('heading', { name: 'Financial Intelligence Agency Records Overview' }).waitFor();
    await other.getByText('No records found').waitFor();
    expect(await statText(other, 'stat-total')).toBe('Total Records0');
    expect(await other.getByTestId('top-country').count()).toBe(0);
  });
});
