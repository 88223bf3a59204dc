import {
  type PossibleMatch,
  type PossibleMatchRecord,
  type PublicUser,
  routes,
  type UncertainClass,
} from '@nrad/contracts';
import {
  Button,
  callApi,
  Flex,
  formatMoment,
  formatUsd,
  messageOf,
  OrganizationBadge,
  organizationName,
  POSSIBLE_MATCHES_KEY,
  recordsChanged,
  useCurrentUser,
  useToast,
} from '@nrad/shared';
import { Card, Col, Descriptions, Empty, Modal, Row, Table, Typography } from '@nrad/shared/ui';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { LoadFailed } from './common.tsx';
import { ReasonField } from './link-actions.tsx';
import { MatchExplanation, matchPercent } from './MatchExplanation.tsx';

/**
 * The Review screen (/review, issue 36, ADR 0022): the possible matches of the user's agency —
 * pairs of its records and another agency's that NRAD found alike but not enough to link by
 * itself — each with what the match panel shows of both records and why they scored as they did.
 * Confirm links them (a manual link by the user); Reject says they are different people, and NRAD
 * never proposes or links the two again. ADMIN sees every pair, decided ones with their decision.
 */

export const REVIEW_PAGE_SIZE = 10;
export const REVIEW_TITLE = 'Possible Matches';
export const REVIEW_INTRO =
  'NRAD found these records alike, but not alike enough to link them by itself. Confirm links the two records; Reject tells NRAD they are different people, and it will not propose or link them again.';
export const CONFIRMED = 'Possible match confirmed: the records are linked';
export const REJECTED = 'Possible match rejected';
export const REJECT_TITLE = 'Reject this possible match?';

function RecordSide({ record, label }: { record: PossibleMatchRecord; label: string }) {
  return (
    <Card size="small" title={label} extra={<OrganizationBadge code={record.organization} />}>
      <Descriptions
        size="small"
        column={1}
        items={[
          { key: 'incident', label: 'Incident Number', children: record.incidentNumber },
          { key: 'name', label: 'Suspect Name', children: record.suspectName },
          { key: 'dob', label: 'Suspect DOB', children: record.suspectDob },
          { key: 'date', label: 'Incident Date', children: record.incidentDate },
          { key: 'amount', label: 'Case Amount', children: formatUsd(record.caseAmount) },
        ]}
      />
    </Card>
  );
}

function decisionText(decision: NonNullable<PossibleMatch['decision']>): string {
  const what = decision.kind === 'confirmed' ? 'Confirmed' : 'Rejected';
  const said = `${what} by ${organizationName(decision.byOrganization)} on ${formatMoment(decision.at)}`;
  return decision.reason ? `${said}: ${decision.reason}` : `${said}.`;
}

function PairCard({
  pair,
  user,
  busy,
  onConfirm,
  onReject,
}: {
  pair: PossibleMatch;
  user: PublicUser | null;
  busy: boolean;
  onConfirm: () => void;
  onReject: () => void;
}) {
  const [own, other] = pair.records;
  const isAdmin = user?.organization === 'ADMIN';
  return (
    <Card
      role="article"
      aria-label={`Possible match: ${own.incidentNumber} and ${other.incidentNumber}`}
      title={matchPercent(pair.confidence)}
      extra={`Proposed ${formatMoment(pair.createdAt)}`}
    >
      <Row gutter={[16, 16]}>
        <Col xs={24} md={12}>
          <RecordSide
            record={own}
            label={isAdmin ? organizationName(own.organization) : `Your record (${organizationName(own.organization)})`}
          />
        </Col>
        <Col xs={24} md={12}>
          <RecordSide record={other} label={organizationName(other.organization)} />
        </Col>
      </Row>
      <Typography.Title level={5}>Why NRAD found them alike</Typography.Title>
      <MatchExplanation explanation={pair.explanation} confidence={pair.confidence} />
      {pair.decision ? (
        <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
          {decisionText(pair.decision)}
        </Typography.Paragraph>
      ) : (
        <Flex gap={8} style={{ marginTop: 16 }}>
          <Button type="primary" loading={busy} onClick={onConfirm}>
            Confirm
          </Button>
          <Button danger disabled={busy} onClick={onReject}>
            Reject
          </Button>
        </Flex>
      )}
    </Card>
  );
}

/** The uncertain classes as the screen names them. */
const CLASS_NAMES: Record<UncertainClass, string> = {
  partialName: 'Part of a name (a surname alone, an initial)',
  loneWord: 'One name word agrees, another disagrees (twins?)',
  unconfirmedDob: 'Names agree, no date of birth confirms them (namesakes?)',
};

const percent = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);

/**
 * ADMIN's view of what the decisions say (issue 36): per band of confidence, the labels it rests on
 * and the precision and recall they estimate.
 */
function LabelFiguresCard() {
  const figures = useQuery({
    queryKey: [POSSIBLE_MATCHES_KEY, 'labels'],
    queryFn: () => callApi(routes.linking.possibleMatchLabels),
  });
  if (!figures.data) return null;
  return (
    <Card title="What the decisions say">
      <Typography.Paragraph>
        {`Estimated from the investigators' decisions alone (${figures.data.labels} in all): a confirmed possible match is the same person, a rejected one or a rejected link two people. A band with few decisions says little.`}
      </Typography.Paragraph>
      <Table
        size="small"
        pagination={false}
        rowKey="from"
        dataSource={figures.data.bands}
        columns={[
          { title: 'Confidence', key: 'band', render: (_, b) => `${b.from}–${b.to}%` },
          { title: 'Decisions', dataIndex: 'labels', align: 'right' },
          { title: 'Confirmed', dataIndex: 'confirmed', align: 'right' },
          { title: 'Rejected', dataIndex: 'rejected', align: 'right' },
          { title: 'Precision', key: 'precision', align: 'right', render: (_, b) => percent(b.precision) },
          { title: 'Recall at or above', key: 'recall', align: 'right', render: (_, b) => percent(b.recallAbove) },
        ]}
      />
      <Typography.Paragraph style={{ marginTop: 16 }}>
        Pairs that go to review for their names: each kind starts at what it was on public data, and the decisions on
        its own pairs move it (the start counting as 20 decisions), within the review band.
      </Typography.Paragraph>
      <Table
        size="small"
        pagination={false}
        rowKey="uncertain"
        dataSource={figures.data.classes}
        columns={[
          { title: 'Kind of pair', key: 'kind', render: (_, c) => CLASS_NAMES[c.uncertain] },
          { title: 'Decisions', dataIndex: 'labels', align: 'right' },
          { title: 'Confirmed', dataIndex: 'confirmed', align: 'right' },
          { title: 'Start', key: 'prior', align: 'right', render: (_, c) => `${c.prior.toFixed(1)}%` },
          { title: 'Estimate', key: 'estimate', align: 'right', render: (_, c) => `${c.estimate.toFixed(1)}%` },
          {
            title: 'Shown at most',
            key: 'ceiling',
            align: 'right',
            render: (_, c) => (c.ceiling === null ? 'not proposed' : `${c.ceiling.toFixed(2)}%`),
          },
        ]}
      />
    </Card>
  );
}

export default function Review() {
  const toast = useToast();
  const queryClient = useQueryClient();
  const { user } = useCurrentUser();
  const [page, setPage] = useState(1);
  const [busy, setBusy] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState<PossibleMatch | null>(null);
  const [reason, setReason] = useState('');
  const list = useQuery({
    queryKey: [POSSIBLE_MATCHES_KEY, page],
    queryFn: () =>
      callApi(routes.linking.possibleMatches, {
        query: { limit: REVIEW_PAGE_SIZE, offset: (page - 1) * REVIEW_PAGE_SIZE },
      }),
    placeholderData: keepPreviousData,
  });

  const changed = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: [POSSIBLE_MATCHES_KEY] }),
      recordsChanged(queryClient),
    ]);
  };

  const confirm = async (pair: PossibleMatch) => {
    setBusy(pair.id);
    try {
      await callApi(routes.linking.confirmPossibleMatch, { params: { id: pair.id } });
      toast.success('Success', CONFIRMED);
    } catch (error) {
      toast.error('Error', messageOf(error, 'Failed to confirm the possible match'));
    } finally {
      setBusy(null);
    }
    await changed();
  };

  const reject = async () => {
    const pair = rejecting;
    if (!pair) return;
    setBusy(pair.id);
    const said = reason.trim();
    try {
      await callApi(routes.linking.rejectPossibleMatch, {
        params: { id: pair.id },
        body: said ? { reason: said } : {},
      });
      toast.success('Success', REJECTED);
    } catch (error) {
      toast.error('Error', messageOf(error, 'Failed to reject the possible match'));
    } finally {
      setBusy(null);
      setRejecting(null);
      setReason('');
    }
    await changed();
  };

  if (list.isError) return <LoadFailed what="The possible matches" onRetry={() => void list.refetch()} />;
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / REVIEW_PAGE_SIZE));
  return (
    <Flex vertical gap={16}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {list.data ? `${REVIEW_TITLE} (${total})` : REVIEW_TITLE}
      </Typography.Title>
      <Typography.Paragraph style={{ margin: 0 }}>{REVIEW_INTRO}</Typography.Paragraph>
      {user?.organization === 'ADMIN' && <LabelFiguresCard />}
      {list.data && list.data.items.length === 0 && <Empty description="No possible matches to review" />}
      {list.data?.items.map((pair) => (
        <PairCard
          key={pair.id}
          pair={pair}
          user={user}
          busy={busy === pair.id}
          onConfirm={() => void confirm(pair)}
          onReject={() => setRejecting(pair)}
        />
      ))}
      {pages > 1 && (
        <Flex gap={8} align="center" justify="center">
          <Button disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </Button>
          <Typography.Text>{`Page ${page} of ${pages}`}</Typography.Text>
          <Button disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </Button>
        </Flex>
      )}
      <Modal
        open={rejecting !== null}
        title={REJECT_TITLE}
        okText="Reject"
        okButtonProps={{ danger: true }}
        cancelText="Cancel"
        confirmLoading={rejecting !== null && busy === rejecting.id}
        onOk={() => void reject()}
        onCancel={() => {
          setRejecting(null);
          setReason('');
        }}
      >
        {rejecting && (
          <>
            <Typography.Paragraph>
              {`${rejecting.records[0].incidentNumber} and ${rejecting.records[1].incidentNumber} are about different people: NRAD will not propose or link them again.`}
            </Typography.Paragraph>
            <ReasonField id="reject-possible-match-reason" value={reason} onChange={setReason} />
          </>
        )}
      </Modal>
    </Flex>
  );
}
