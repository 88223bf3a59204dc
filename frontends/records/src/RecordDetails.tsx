import { ORGANIZATION_NAMES } from '@nrad/contracts';
import {
  Button,
  Flex,
  formatDate,
  formatMoment,
  formatUsd,
  OrganizationBadge,
  pageStyle,
  useDeleteRecord,
  useRecord,
  useRecordLinks,
} from '@nrad/shared';
import { Card, Descriptions, Modal, Typography } from '@nrad/shared/ui';
import { useLocation, useParams } from 'wouter';
import { isNotFound, LoadFailed, Loading, RecordNotFound } from './common.tsx';
import { RecordJourney } from './RecordJourney.tsx';

/** Said under a record the linking service has not seen yet (issue 36): no links yet, not none. */
export const LINKING_IN_PROGRESS =
  'Linking in progress: NRAD has not yet compared this record with the other agencies’ records.';

/** SPEC §2 Record Details (/record/{id}). */
export default function RecordDetails() {
  const { id = '' } = useParams<{ id: string }>();
  const [, navigate] = useLocation();
  const [modal, modalHolder] = Modal.useModal();
  const deleteRecord = useDeleteRecord(modal);
  const record = useRecord(id);
  const links = useRecordLinks(id, record.isSuccess);

  if (record.isLoading) return <Loading />;
  if (isNotFound(record.error)) return <RecordNotFound />;
  if (!record.data) return <LoadFailed what="The record" onRetry={() => void record.refetch()} />;
  const r = record.data;

  // The badges name the organizations of the journey's links: one read for both. A rejected link
  // (only ADMIN's read has them) links nothing.
  const organizations = [
    ...new Set((links.data?.links ?? []).filter((l) => !l.rejection).map((l) => l.linkedRecord.organization)),
  ].sort();
  const cardStyle = { height: '100%' };
  return (
    <Flex vertical gap={16} style={pageStyle}>
      {modalHolder}
      <Flex justify="space-between" align="center" wrap gap={8}>
        <Button onClick={() => navigate('/')}>Back to Dashboard</Button>
        <Flex gap={8}>
          <Button onClick={() => navigate(`/record/${id}/edit`)}>Edit Record</Button>
          <Button danger onClick={() => deleteRecord(r, () => navigate('/'))}>
            Delete
          </Button>
        </Flex>
      </Flex>
      <Flex align="center" gap={12} wrap>
        <Typography.Title level={2} style={{ margin: 0 }}>
          {r.incidentNumber}
        </Typography.Title>
        {organizations.length > 0 && (
          <Flex align="center" gap={4} data-testid="linked-organizations">
            <Typography.Text type="secondary">Linked with</Typography.Text>
            {organizations.map((o) => (
              <OrganizationBadge key={o} code={o} />
            ))}
          </Flex>
        )}
      </Flex>
      {/* Two columns of cards on a wide screen, one on a phone. */}
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 420px), 1fr))', gap: 16 }}>
        <Card title="Basic Information" style={cardStyle}>
          <Descriptions column={1} size="small">
            <Descriptions.Item label="Incident Number">{r.incidentNumber}</Descriptions.Item>
            <Descriptions.Item label="Source of Record">{r.sourceOfRecord}</Descriptions.Item>
            {r.namlcOrganization && (
              <Descriptions.Item label="NAMLC Organization">{r.namlcOrganization}</Descriptions.Item>
            )}
            <Descriptions.Item label="Organization">
              <OrganizationBadge code={r.organization} /> {ORGANIZATION_NAMES[r.organization]}
            </Descriptions.Item>
            <Descriptions.Item label="Created">{formatMoment(r.createdAt)}</Descriptions.Item>
          </Descriptions>
        </Card>
        <Card title="Suspect Information" style={cardStyle}>
          <Descriptions column={1} size="small">
            <Descriptions.Item label="Name">{r.suspectName}</Descriptions.Item>
            <Descriptions.Item label="Date of Birth">{formatDate(r.suspectDob)}</Descriptions.Item>
            <Descriptions.Item label="Incident Date">{formatDate(r.incidentDate)}</Descriptions.Item>
          </Descriptions>
        </Card>
        <Card title="Financial Information" style={cardStyle}>
          <Descriptions column={1} size="small">
            <Descriptions.Item label="Case Amount">{formatUsd(r.caseAmount)}</Descriptions.Item>
            <Descriptions.Item label="Seized Amount">{formatUsd(r.seizedAmount)}</Descriptions.Item>
            <Descriptions.Item label="Confiscated Amount">{formatUsd(r.confiscatedAmount)}</Descriptions.Item>
          </Descriptions>
        </Card>
        <Card title="Classification" style={cardStyle}>
          <Descriptions column={1} size="small">
            <Descriptions.Item label="International Nexus">
              {r.internationalNexus ? `Yes — ${r.country}` : 'No'}
            </Descriptions.Item>
            <Descriptions.Item label="Crime Type">{r.crimeType ?? 'Not specified'}</Descriptions.Item>
            <Descriptions.Item label="Crime Subtype">{r.crimeSubtype ?? 'Not specified'}</Descriptions.Item>
            <Descriptions.Item label="Cyber-Assisted">{r.cyberAssisted ? 'Yes' : 'No'}</Descriptions.Item>
          </Descriptions>
        </Card>
      </div>
      <Card title="Additional Information">
        <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', margin: 0 }}>
          {r.additionalInfo ?? 'No additional information.'}
        </Typography.Paragraph>
      </Card>
      {/* Shown while the record has links: an agency's read leaves out rejected ones, ADMIN's keeps them. */}
      {links.data?.pending && <Typography.Text type="secondary">{LINKING_IN_PROGRESS}</Typography.Text>}
      {links.data && links.data.links.length > 0 && <RecordJourney record={r} links={links.data.links} />}
    </Flex>
  );
}
