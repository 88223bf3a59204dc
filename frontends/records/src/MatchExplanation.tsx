import type { MatchExplanation as Explanation } from '@nrad/contracts';
import { Tag } from '@nrad/shared';
import { Table } from '@nrad/shared/ui';

const FIELD_LABELS: Record<Explanation[number]['field'], string> = {
  suspectName: 'Suspect name',
  suspectDob: 'Date of birth',
  incidentDate: 'Incident date',
  caseAmount: 'Case amount',
};

const STATUS: Record<Explanation[number]['status'], { label: string; color: string }> = {
  match: { label: 'Match', color: 'green' },
  partial: { label: 'Close', color: 'gold' },
  mismatch: { label: 'Different', color: 'red' },
  missing: { label: 'Not compared', color: 'default' },
};

/**
 * "87.5% match" (SPEC §2 Record Journey), from a confidence of 0–100. At 99% and above one decimal,
 * rounded down, so near-certainty never reads as certainty: 99.99 is "99.9% match"; only 100 (the
 * service gives it to exact agreement alone) is "100% match".
 */
export function matchPercent(confidence: number): string {
  if (confidence >= 100) return '100% match';
  // Whole hundredths first (99.1 × 10 is 990.99… in floating point).
  if (confidence >= 99) return `${(Math.floor(Math.round(confidence * 100) / 10) / 10).toFixed(1)}% match`;
  return `${Number(confidence.toFixed(2))}% match`;
}

/**
 * Why two records matched, field by field: how each compared, and the points each added to (or
 * took from) the confidence — they add up to it.
 */
export function MatchExplanation({ explanation, confidence }: { explanation: Explanation; confidence: number }) {
  return (
    <Table
      size="small"
      pagination={false}
      rowKey="field"
      dataSource={explanation}
      columns={[
        { title: 'Field', dataIndex: 'field', render: (f: Explanation[number]['field']) => FIELD_LABELS[f] },
        {
          title: 'Compared',
          dataIndex: 'status',
          render: (s: Explanation[number]['status']) => <Tag color={STATUS[s].color}>{STATUS[s].label}</Tag>,
        },
        { title: 'Detail', dataIndex: 'detail', render: (d?: string) => d ?? '' },
        {
          title: 'Points',
          dataIndex: 'contribution',
          align: 'right',
          render: (c: number) => (c > 0 ? `+${c.toFixed(2)}` : c.toFixed(2)),
        },
      ]}
      summary={() => (
        <Table.Summary.Row>
          <Table.Summary.Cell index={0} colSpan={3}>
            Confidence
          </Table.Summary.Cell>
          <Table.Summary.Cell index={1} align="right">
            {confidence.toFixed(2)}
          </Table.Summary.Cell>
        </Table.Summary.Row>
      )}
    />
  );
}
