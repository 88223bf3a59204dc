import type { DashboardStats } from '@nrad/contracts';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRecord, createRecords, deleteRecord } from '../../shared/test/records-api.ts';
import { openAt, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import Dashboard, { NO_COUNTRIES_TEXT } from './Dashboard.tsx';
import { REPORT_TEXTS } from './GenerateReport.tsx';

let url = '';
beforeAll(async () => {
  ({ url } = await spawnStack());
  openAt(`${url}/`);
});

const year = new Date().getUTCFullYear();

/** Waits until the stats service has counted what was just written (it follows the events). */
async function statsReach(total: number): Promise<DashboardStats> {
  const until = Date.now() + 20_000;
  for (;;) {
    const stats = (await (await fetch('/api/stats')).json()) as DashboardStats;
    if (stats.totalRecords === total) return stats;
    if (Date.now() > until) throw new Error(`stats stayed at ${stats.totalRecords} records, not ${total}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const card = (testId: string) => screen.getByTestId(testId);

describe('Dashboard', () => {
  it('shows zeros and the empty states to an agency without records', async () => {
    await signedInAs('CUS');
    openAt(`${url}/`);
    renderScreen(<Dashboard />);
    expect(await screen.findByRole('heading', { name: 'Customs Records Overview' })).toBeInTheDocument();
    await waitFor(() => expect(card('stat-total')).toHaveTextContent('Total Records0'));
    expect(card('stat-month')).toHaveTextContent('This Month0');
    expect(card('stat-international')).toHaveTextContent('International Cases0');
    expect(card('stat-seized')).toHaveTextContent(`Total Seized Amount (${year})$0.00`);
    expect(await screen.findByText(NO_COUNTRIES_TEXT)).toBeInTheDocument();
    expect(await screen.findByText('No records found')).toBeInTheDocument();
    expect(screen.getByText('Global Incident Distribution')).toBeInTheDocument();
    // The Generate Report card (GenerateReport.test.tsx tests it against a scripted report API).
    expect(screen.getByRole('button', { name: 'Generate Report' })).toBeEnabled();
  });

  it('counts the agency’s records, lists its top countries and its five newest records', async () => {
    await signedInAs('FIA');
    const thisYear = `${year}-01-15`;
    await createRecords(3, (i) => ({
      suspectName: `Brazil Case ${i}`,
      internationalNexus: true,
      country: 'Brazil',
      incidentDate: thisYear,
      seizedAmount: '100.25',
    }));
    await createRecords(2, (i) => ({ suspectName: `Chile Case ${i}`, internationalNexus: true, country: 'Chile' }));
    const gone = await createRecord({ suspectName: 'Deleted Case', internationalNexus: true, country: 'Chile' });
    await createRecord({ suspectName: 'Home Case', incidentDate: `${year - 1}-12-31`, seizedAmount: '999' });
    const newest = await createRecord({ suspectName: 'Newest Case', seizedAmount: '0.5', incidentDate: thisYear });
    await deleteRecord(gone.id);
    await statsReach(7);

    const user = userEvent.setup();
    renderScreen(<Dashboard />);
    expect(
      await screen.findByRole('heading', { name: 'Financial Intelligence Agency Records Overview' }),
    ).toBeInTheDocument();
    await waitFor(() => expect(card('stat-total')).toHaveTextContent('Total Records7'));
    expect(card('stat-month')).toHaveTextContent('This Month7');
    expect(card('stat-international')).toHaveTextContent('International Cases5');
    // Seized this year: 3 × 100.25 + 0.5; last year's 999 does not count.
    expect(card('stat-seized')).toHaveTextContent(`Total Seized Amount (${year})$301.25`);

    const top = await screen.findByTestId('top-countries');
    expect(
      within(top)
        .getAllByTestId('top-country')
        .map((t) => t.textContent),
    ).toEqual(['Brazil 3', 'Chile 2']);

    await waitFor(() => expect(document.querySelectorAll('tbody tr.ant-table-row')).toHaveLength(5));
    const first = document.querySelector('tbody tr.ant-table-row') as HTMLElement;
    expect([...first.children].map((c) => c.textContent)).toEqual([
      newest.incidentNumber,
      'Newest Case',
      `01/15/${year}`,
      '$100.50',
      'No',
      'No',
    ]);
    expect(screen.queryByText('Deleted Case')).toBeNull();

    // The map: every country drawn, the two with incidents shaded, Brazil (the maximum) red.
    const map = await screen.findByTestId('world-map');
    await waitFor(() => expect(map.querySelectorAll('path').length).toBeGreaterThan(200));
    const fills = new Set([...map.querySelectorAll('path')].map((p) => p.getAttribute('fill')));
    expect(fills).toContain('#f8f9fa'); // countries without data
    expect(fills).toContain('rgb(255,0,0)'); // Brazil: 3, the maximum
    expect(fills).toContain('rgb(250,80,80)'); // Chile: 2 of 3 along #f0f0f0 → red
    expect([...fills].filter((f) => /^rgb\((?!0,0,0)/.test(f ?? ''))).toHaveLength(2);
    // The legend under the map, not on it.
    expect(screen.getByTestId('map-legend')).toHaveTextContent('No incidentsIncidents (max)');
    expect(map.contains(screen.getByTestId('map-legend'))).toBe(false);
    await user.click(within(first).getByText('Newest Case'));
    expect(window.location.pathname).toBe(`/record/${newest.id}`);
  });

  it('generates a report through the real services (no model: the template) and lists it', async () => {
    const person = await signedInAs('BPS');
    await createRecord({ suspectName: 'Report Case', internationalNexus: true, country: 'Chile' });
    await statsReach(1);
    const user = userEvent.setup();
    renderScreen(<Dashboard />);
    const card = await screen.findByTestId('generate-report');
    expect(await screen.findByText(REPORT_TEXTS.noReports)).toBeInTheDocument();
    await user.type(within(card).getByLabelText('Parameters (optional)'), 'International cases');
    await user.click(within(card).getByRole('button', { name: 'Generate Report' }));
    expect(await within(card).findByText(REPORT_TEXTS.runningDetail)).toBeInTheDocument();

    expect(await within(card).findByRole('heading', { name: 'Generated Report' }, { timeout: 20_000 })).toBeVisible();
    await waitFor(() => expect(toastText(REPORT_TEXTS.generated)).toBeDefined());
    expect(screen.getByTestId('report-meta')).toHaveTextContent(REPORT_TEXTS.template);
    const text = screen.getByTestId('report-text');
    // The Markdown renderer is a chunk of its own, loaded with the first report shown.
    expect(await within(text).findByRole('heading', { level: 1 }, { timeout: 10_000 })).toHaveTextContent(
      'Bermuda Police Service',
    );
    expect(text.querySelector('blockquote')).toHaveTextContent(/template/i);

    // The Markdown download is the same text, as an attachment.
    const href = screen.getByRole('link', { name: 'Download Markdown' }).getAttribute('href') ?? '';
    const download = await fetch(href, { credentials: 'include' });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(await download.text()).toMatch(/^> \*\*Written from a template/);

    // The list is read again: the new report, by the person who asked for it.
    const list = screen.getByTestId('earlier-reports');
    await waitFor(() => expect(list.querySelectorAll('tbody tr.ant-table-row')).toHaveLength(1));
    const row = list.querySelector('tbody tr.ant-table-row') as HTMLElement;
    expect([...row.children].slice(1).map((c) => c.textContent)).toEqual([
      person.name,
      'Template',
      'International cases',
    ]);
  });
});
