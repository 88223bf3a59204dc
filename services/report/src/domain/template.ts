import { ORGANIZATION_NAMES, type ReportFigures } from '@nrad/contracts';

/** The template report's first line: what it is, and why no model wrote it. */
export const TEMPLATE_NOTICE =
  '> **Written from a template, not by AI.** No AI model is configured for NRAD (`OPENAI_MODEL`), so this report states the figures without analysis.';

/** A scope as a reader names it. */
export function scopeName(scope: ReportFigures['scope']): string {
  return scope === 'ALL' ? 'All agencies' : `${ORGANIZATION_NAMES[scope]} (${scope})`;
}

const whole = (n: number) => n.toLocaleString('en-US');

/** A decimal amount string ("1234.50") as "$1,234.50" (exact: the string is never a float). */
export function usd(amount: string): string {
  const [dollars = '0', cents = '00'] = amount.split('.');
  return `$${dollars.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

/** A share (0–1) as a percentage with one decimal; "–" when there is none. */
export const percent = (share: number | null) => (share === null ? '–' : `${(share * 100).toFixed(1)}%`);

/** Text put in a Markdown table cell: pipes escaped, line breaks flattened. */
const cell = (s: string) =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ');

/** The user's text as a fenced block whose fence is longer than any backtick run inside it. */
export function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

/**
 * The report written from the figures alone, deterministically (the same figures and parameters
 * give the same text): used when no model is configured. It states figures; it draws no
 * conclusions, and its first line says what it is.
 */
export function templateReport(figures: ReportFigures, parameters: string | null): string {
  const { stats, links } = figures;
  const total = stats.totalRecords;
  const share = (n: number) => percent(total > 0 ? n / total : null);
  const lines: string[] = [
    TEMPLATE_NOTICE,
    '',
    `# Risk assessment report: ${scopeName(figures.scope)}`,
    '',
    `Figures as of ${stats.asOf.slice(0, 16).replace('T', ' ')} UTC, over records that are not deleted.`,
    '',
    '## Summary',
    '',
    `- Records: ${whole(total)}`,
    `- With an international nexus: ${whole(stats.internationalCases)} (${share(stats.internationalCases)})`,
    `- Cyber-assisted: ${whole(stats.cyberAssisted.count)} (${percent(stats.cyberAssisted.share)})`,
    `- Case amounts: ${usd(stats.amounts.caseTotal)}`,
    `- Seized: ${usd(stats.amounts.seizedTotal)} (${stats.amounts.year}: ${usd(stats.amounts.seizedThisYear)})`,
    `- Confiscated: ${usd(stats.amounts.confiscatedTotal)}; confiscated to seized: ${
      stats.amounts.confiscatedToSeized === null ? 'nothing seized' : percent(stats.amounts.confiscatedToSeized)
    }`,
    `- Cross-agency links: ${whole(links.total)}`,
  ];
  if (stats.withoutDetail > 0) {
    lines.push(
      '',
      `Note: ${whole(stats.withoutDetail)} records are counted in the totals but not in the breakdowns by month, crime type, cyber flag and amount (the statistics' read model predates those breakdowns).`,
    );
  }

  lines.push('', `## Records by month (last ${stats.months.length} months)`, '');
  lines.push('| Month | Incidents (by incident date) | Recorded (by entry date) |', '|---|---:|---:|');
  for (const m of stats.months) lines.push(`| ${m.month} | ${whole(m.incidents)} | ${whole(m.recorded)} |`);

  lines.push('', '## By crime type', '');
  if (stats.crimeTypes.length === 0) lines.push('No records.');
  else {
    lines.push('| Crime type | Subtype | Records | Share |', '|---|---|---:|---:|');
    for (const t of stats.crimeTypes) {
      const type = cell(t.crimeType ?? 'Not given');
      lines.push(`| **${type}** | all | ${whole(t.count)} | ${share(t.count)} |`);
      for (const s of t.subtypes) {
        lines.push(`| ${type} | ${cell(s.subtype ?? 'Not given')} | ${whole(s.count)} | ${share(s.count)} |`);
      }
    }
  }

  lines.push('', '## By country (records with an international nexus)', '');
  if (stats.countries.length === 0) lines.push('No records with an international nexus.');
  else {
    lines.push('| Country | Records |', '|---|---:|');
    for (const c of stats.countries) lines.push(`| ${cell(c.country)} | ${whole(c.count)} |`);
  }

  lines.push('', '## Cross-agency links', '');
  if (links.pairs.length === 0) lines.push('No links between records of different agencies.');
  else {
    lines.push('| Agencies | Links | Automatic | Manual |', '|---|---:|---:|---:|');
    for (const p of links.pairs) {
      lines.push(`| ${p.agencies.join(' – ')} | ${whole(p.count)} | ${whole(p.auto)} | ${whole(p.manual)} |`);
    }
  }

  if (parameters) {
    lines.push(
      '',
      '## Your request',
      '',
      'A template cannot follow a request; it is kept here with the report.',
      '',
      fenced(parameters),
    );
  }
  return `${lines.join('\n')}\n`;
}
