import type { CaseRecord, PublicUser, RecordLinkView } from '@nrad/contracts';
import { Button, Flex, formatDate, formatUsd, organizationName, Tag, theme, useCurrentUser } from '@nrad/shared';
import { Card, Typography } from '@nrad/shared/ui';
import { Fragment, useState } from 'react';
import { Link } from 'wouter';
import { journeyCircleColors } from './colors.ts';
import { RejectLinkDialog, type RejectTarget, rejectionText, useRestoreLink } from './link-actions.tsx';
import { MatchExplanation, matchPercent } from './MatchExplanation.tsx';

export const AUTO_LINK_NOTE =
  'NRAD links records of different agencies automatically when it finds the same suspect (name and date of birth, with the incident date and amount as support). The percentage says how sure the match is; "Why?" shows how each field compared.';

/**
 * Whether `user` may open `record` (the records service's rule): ADMIN every record, an agency its
 * own. Unknown user (still loading): no, so no link leads to Record Not Found.
 */
export function mayOpen(user: PublicUser | null, record: Pick<CaseRecord, 'organization'>): boolean {
  return user !== null && (user.organization === 'ADMIN' || user.organization === record.organization);
}

/** Under another agency's record, which the link discloses but the user may not open. */
export const closedRecordText = (organization: string) =>
  `Only ${organizationName(organization)} can open this record; the link shares what is shown here.`;

function Circle({ code }: { code: string }) {
  const colors = journeyCircleColors(code);
  return (
    <span
      title={organizationName(code)}
      style={{
        display: 'inline-flex',
        alignItems: 'center',
        justifyContent: 'center',
        boxSizing: 'border-box',
        width: 56,
        height: 56,
        borderRadius: '50%',
        border: `2px solid ${colors.edge}`,
        color: colors.text,
        fontWeight: 600,
        background: colors.fill,
      }}
    >
      {code}
    </span>
  );
}

/**
 * SPEC §2 Record Journey: the chain of organizations the suspect passed through, and each link's
 * date, case and seized amounts, match percentage, crime type and NAMLC organization — with why
 * it matched, on demand. Each link can be rejected (issue 34); ADMIN, whose read of the links
 * includes rejected ones, sees them greyed, out of the chain, with who rejected them, when and
 * why, and restores them.
 */
export function RecordJourney({ record, links }: { record: CaseRecord; links: RecordLinkView[] }) {
  const { token } = theme.useToken();
  const [open, setOpen] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState<RejectTarget | null>(null);
  const { restore, restoring } = useRestoreLink();
  const { user } = useCurrentUser();
  const isAdmin = user?.organization === 'ADMIN';
  return (
    <Card title="Record Journey" data-testid="record-journey">
      <RejectLinkDialog target={rejecting} onClose={() => setRejecting(null)} />
      <Flex align="center" gap={8} wrap style={{ marginBottom: 16 }} aria-label="Organizations in this journey">
        <Circle code={record.organization} />
        {links
          .filter((l) => !l.rejection)
          .map((l) => (
            <Fragment key={l.id}>
              <span aria-hidden style={{ color: token.colorTextTertiary }}>
                →
              </span>
              <Circle code={l.linkedRecord.organization} />
            </Fragment>
          ))}
      </Flex>
      <Flex vertical gap={12}>
        {links.map((l) => {
          const other = l.linkedRecord;
          const openable = mayOpen(user, other);
          const rejection = l.rejection;
          return (
            <Card
              key={l.id}
              size="small"
              type="inner"
              data-testid="journey-link"
              data-rejected={rejection ? 'true' : undefined}
              style={rejection ? { background: token.colorFillQuaternary, color: token.colorTextTertiary } : undefined}
            >
              <Flex justify="space-between" wrap gap={8}>
                <Typography.Text strong type={rejection ? 'secondary' : undefined}>
                  {organizationName(other.organization)} ·{' '}
                  {openable ? (
                    <Link href={`/record/${other.id}`}>{other.incidentNumber}</Link>
                  ) : (
                    <span>{other.incidentNumber}</span>
                  )}
                </Typography.Text>
                <Flex align="center" gap={8}>
                  {rejection && <Tag style={{ marginInlineEnd: 0 }}>Rejected</Tag>}
                  <Typography.Text strong type={rejection ? 'secondary' : undefined}>
                    {matchPercent(l.confidence)}
                  </Typography.Text>
                  {!rejection && user !== null && (
                    <Button
                      danger
                      size="small"
                      aria-label={`Reject the link to ${other.incidentNumber}`}
                      onClick={() => setRejecting({ recordId: record.id, linked: other })}
                    >
                      Reject
                    </Button>
                  )}
                  {rejection && isAdmin && (
                    <Button
                      size="small"
                      aria-label={`Restore the link to ${other.incidentNumber}`}
                      loading={restoring === other.id}
                      onClick={() => void restore(record.id, other.id)}
                    >
                      Restore
                    </Button>
                  )}
                </Flex>
              </Flex>
              {rejection && (
                <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0' }}>
                  {rejectionText(rejection)}
                </Typography.Paragraph>
              )}
              {!openable && user !== null && (
                <Typography.Text type="secondary" style={{ fontSize: '0.9em' }}>
                  {closedRecordText(other.organization)}
                </Typography.Text>
              )}
              <dl
                style={{ margin: '8px 0 0', display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '2px 12px' }}
              >
                <dt>Date</dt>
                <dd style={{ margin: 0 }}>{formatDate(other.incidentDate)}</dd>
                <dt>Case Amount</dt>
                <dd style={{ margin: 0 }}>{formatUsd(other.caseAmount)}</dd>
                <dt>Seized Amount</dt>
                <dd style={{ margin: 0 }}>{formatUsd(other.seizedAmount)}</dd>
                <dt>Crime Type</dt>
                <dd style={{ margin: 0 }}>{other.crimeType ?? 'Not specified'}</dd>
                <dt>NAMLC Organization</dt>
                <dd style={{ margin: 0 }}>{other.namlcOrganization ?? 'None'}</dd>
                <dt>Linked</dt>
                <dd style={{ margin: 0 }}>{l.linkType === 'auto' ? 'automatically' : 'by an investigator'}</dd>
              </dl>
              <Button
                type="link"
                size="small"
                style={{ paddingInline: 0 }}
                onClick={() => setOpen(open === l.id ? null : l.id)}
              >
                {open === l.id ? 'Hide why' : 'Why?'}
              </Button>
              {open === l.id && <MatchExplanation explanation={l.explanation} confidence={l.confidence} />}
            </Card>
          );
        })}
      </Flex>
      <Typography.Paragraph type="secondary" style={{ marginTop: 16, marginBottom: 0 }}>
        {AUTO_LINK_NOTE}
      </Typography.Paragraph>
    </Card>
  );
}
