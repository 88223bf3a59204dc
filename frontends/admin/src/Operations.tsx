import {
  type ConsumerState,
  type FailedJob,
  OPERATIONS_REFRESH_MS,
  OperationsSchema,
  type Operations as OperationsSnapshot,
  QUEUES_BOARD_PATH,
  type QueueState,
  routes,
  type SecurityAlert,
  type SecurityAlertKind,
  type ServiceHealth,
  type SignInLock,
  SignInLocksSchema,
  type StreamState,
} from '@nrad/contracts';
import { Button, callApi, Flex, formatDateTime, messageOf, OrganizationBadge, Spin, Tag } from '@nrad/shared';
import { Alert, Card, Table, type TableProps, Typography } from '@nrad/shared/ui';
import { useMutation, useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { AdminOnly, useIsAdmin } from './access.tsx';
import { OPERATIONS_KEY } from './keys.ts';

const count = (n: number) => n.toLocaleString('en-US');
const time = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', second: '2-digit' });

/** A size in bytes, in the largest unit that keeps it above 1 (1,024 per step). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** A part of the console: a card titled `title`, its content a region named the same for readers and tests. */
function Part({ title, extra, children }: { title: string; extra?: ReactNode; children: ReactNode }) {
  return (
    <Card title={title} extra={extra} size="small">
      <section aria-label={title}>{children}</section>
    </Card>
  );
}

/** The tables' common settings: small, no paging (the lists are short), scrolling sideways on a phone. */
function List<T extends object>(props: TableProps<T> & { rowKey: TableProps<T>['rowKey'] }) {
  return <Table<T> size="small" pagination={false} scroll={{ x: 'max-content' }} {...props} />;
}

const up = (state: 'up' | 'down') => (state === 'up' ? 'green' : 'red');

function Services({ services }: { services: ServiceHealth[] }) {
  return (
    <List<ServiceHealth>
      rowKey="name"
      dataSource={services}
      locale={{ emptyText: 'No services' }}
      columns={[
        { title: 'Service', dataIndex: 'name' },
        {
          title: 'Status',
          dataIndex: 'ready',
          render: (ready: boolean) => (ready ? <Tag color="green">Ready</Tag> : <Tag color="red">Not ready</Tag>),
        },
        {
          title: 'Checks',
          dataIndex: 'checks',
          render: (checks: ServiceHealth['checks']) => {
            const entries = Object.entries(checks);
            if (entries.length === 0) return <Typography.Text type="secondary">unreachable</Typography.Text>;
            return (
              <Flex wrap gap={4}>
                {entries.map(([name, state]) => (
                  <Tag key={name} color={up(state)}>{`${name} ${state}`}</Tag>
                ))}
              </Flex>
            );
          },
        },
        { title: 'Version', dataIndex: 'version', render: (v: string | null) => v ?? '—' },
      ]}
    />
  );
}

function Queues({ queues }: { queues: QueueState[] }) {
  const failures = queues.flatMap((q) => q.recentFailures.map((job) => ({ queue: q.name, ...job })));
  return (
    <Flex vertical gap={16}>
      <List<QueueState>
        rowKey="name"
        dataSource={queues}
        locale={{ emptyText: 'No queues' }}
        columns={[
          { title: 'Queue', dataIndex: 'name' },
          { title: 'Waiting', dataIndex: 'waiting', align: 'right', render: count },
          { title: 'Active', dataIndex: 'active', align: 'right', render: count },
          { title: 'Completed', dataIndex: 'completed', align: 'right', render: count },
          {
            title: 'Failed',
            dataIndex: 'failed',
            align: 'right',
            render: (n: number) => (n > 0 ? <Typography.Text type="danger">{count(n)}</Typography.Text> : count(n)),
          },
          { title: 'Delayed', dataIndex: 'delayed', align: 'right', render: count },
          {
            title: 'Paused',
            dataIndex: 'paused',
            render: (paused: boolean) => (paused ? <Tag color="orange">Paused</Tag> : 'No'),
          },
        ]}
      />
      <div>
        <Typography.Title level={5} style={{ marginTop: 0 }}>
          Recent failures
        </Typography.Title>
        <List<FailedJob & { queue: string }>
          rowKey={(job) => `${job.queue}:${job.id}`}
          dataSource={failures}
          locale={{ emptyText: 'No failed jobs' }}
          columns={[
            { title: 'Queue', dataIndex: 'queue' },
            { title: 'Job', key: 'job', render: (_, job) => `${job.name} #${job.id}` },
            {
              title: 'Reason',
              dataIndex: 'reason',
              render: (reason: string) => <span style={{ whiteSpace: 'pre-wrap' }}>{reason}</span>,
            },
            { title: 'Attempts', dataIndex: 'attemptsMade', align: 'right' },
            { title: 'Failed at', dataIndex: 'failedAt', render: (v: string | null) => formatDateTime(v, '—') },
          ]}
        />
      </div>
    </Flex>
  );
}

function Streams({ streams }: { streams: StreamState[] }) {
  return (
    <List<StreamState>
      rowKey="name"
      dataSource={streams}
      locale={{ emptyText: 'No streams' }}
      columns={[
        { title: 'Stream', dataIndex: 'name' },
        {
          title: 'Subjects',
          dataIndex: 'subjects',
          render: (subjects: string[]) => (
            <Flex wrap gap={4}>
              {subjects.map((s) => (
                <Typography.Text key={s} code>
                  {s}
                </Typography.Text>
              ))}
            </Flex>
          ),
        },
        { title: 'Messages', dataIndex: 'messages', align: 'right', render: count },
        { title: 'Bytes', dataIndex: 'bytes', align: 'right', render: formatBytes },
        { title: 'First seq', dataIndex: 'firstSeq', align: 'right', render: count },
        { title: 'Last seq', dataIndex: 'lastSeq', align: 'right', render: count },
        { title: 'Consumers', dataIndex: 'consumers', align: 'right', render: count },
      ]}
    />
  );
}

function Consumers({ consumers }: { consumers: ConsumerState[] }) {
  return (
    <List<ConsumerState>
      rowKey={(c) => `${c.stream}/${c.name}`}
      dataSource={consumers}
      locale={{ emptyText: 'No consumers' }}
      columns={[
        { title: 'Stream', dataIndex: 'stream' },
        { title: 'Consumer', dataIndex: 'name' },
        { title: 'Pending', dataIndex: 'pending', align: 'right', render: count },
        { title: 'Ack pending', dataIndex: 'ackPending', align: 'right', render: count },
        { title: 'Redelivered', dataIndex: 'redelivered', align: 'right', render: count },
        { title: 'Waiting', dataIndex: 'waiting', align: 'right', render: count },
        {
          title: 'Last delivery',
          dataIndex: 'lastDelivery',
          render: (d: ConsumerState['lastDelivery']) =>
            d.at ? `#${count(d.streamSeq)} at ${formatDateTime(d.at)}` : 'never',
        },
      ]}
    />
  );
}

const ALERT_KINDS: Record<SecurityAlertKind, string> = {
  'link-refusals': 'Link attempts refused',
  'rate-limits': 'Limits hit',
};

/**
 * Addresses that must wait before trying an account again after failed sign-ins (issue 37), the
 * longest-lasting first, each with a way to end the wait at once (a colleague who mistyped, behind
 * the office's address).
 */
function SignInWaits() {
  const waits = useQuery({
    queryKey: [...OPERATIONS_KEY, 'sign-in-locks'],
    queryFn: async () => SignInLocksSchema.parse(await callApi(routes.session.locks)).items,
    refetchInterval: OPERATIONS_REFRESH_MS,
    staleTime: 0,
  });
  const unlock = useMutation({
    mutationFn: (id: string) => callApi(routes.session.unlock, { params: { id } }),
    onSettled: () => void waits.refetch(),
  });
  if (waits.isError) {
    return <Alert type="error" showIcon title="The sign-in waits could not be read" />;
  }
  return (
    <List<SignInLock>
      rowKey="id"
      loading={waits.isLoading}
      dataSource={waits.data ?? []}
      locale={{ emptyText: 'No sign-in is waiting' }}
      columns={[
        { title: 'Account', dataIndex: 'email' },
        {
          title: 'Address',
          dataIndex: 'clientAddress',
          render: (address: string) => <Typography.Text code>{address}</Typography.Text>,
        },
        { title: 'Failures', dataIndex: 'failures', render: (n: number) => count(n) },
        { title: 'Waits until', dataIndex: 'until', render: (until: string) => formatDateTime(until, '—') },
        {
          title: 'Action',
          key: 'action',
          render: (_, lock) => (
            <Button
              size="small"
              loading={unlock.isPending && unlock.variables === lock.id}
              onClick={() => unlock.mutate(lock.id)}
              aria-label={`Unlock ${lock.email} from ${lock.clientAddress}`}
            >
              Unlock
            </Button>
          ),
        },
      ]}
    />
  );
}

/** A window in words: "10 minutes", "90 seconds". */
export function windowText(seconds: number): string {
  if (seconds % 60 !== 0) return `${count(seconds)} second${seconds === 1 ? '' : 's'}`;
  const minutes = seconds / 60;
  return `${count(minutes)} minute${minutes === 1 ? '' : 's'}`;
}

/** The gateway's security alerts (issue 34), newest first: who, what, how many in what window, the last path. */
function Alerts({ alerts }: { alerts: SecurityAlert[] }) {
  return (
    <List<SecurityAlert>
      rowKey={(a) => `${a.at}:${a.userId}:${a.kind}`}
      dataSource={alerts}
      locale={{ emptyText: 'No security alerts' }}
      columns={[
        { title: 'Raised', dataIndex: 'at', render: (at: string) => formatDateTime(at, '—') },
        {
          title: 'User',
          key: 'user',
          render: (_, a) => (
            <Flex gap={4} align="center">
              <OrganizationBadge code={a.organization} />
              <Typography.Text code>{a.userId}</Typography.Text>
            </Flex>
          ),
        },
        {
          title: 'Alert',
          dataIndex: 'kind',
          render: (kind: SecurityAlertKind) => <Tag color="red">{ALERT_KINDS[kind]}</Tag>,
        },
        { title: 'Count', key: 'count', render: (_, a) => `${count(a.count)} in ${windowText(a.windowSeconds)}` },
        {
          title: 'Last path',
          dataIndex: 'path',
          render: (path: string) => <Typography.Text code>{path}</Typography.Text>,
        },
      ]}
    />
  );
}

/** The console's content: one snapshot of GET /api/admin/operations, read again every few seconds. */
function Console() {
  const isAdmin = useIsAdmin();
  const snapshot = useQuery<OperationsSnapshot>({
    queryKey: OPERATIONS_KEY,
    queryFn: async () => OperationsSchema.parse(await callApi(routes.ops.operations)),
    // The one polling query of the app (SPEC §7's default is none): a console is watched.
    refetchInterval: OPERATIONS_REFRESH_MS,
    staleTime: 0,
    enabled: isAdmin,
  });
  const data = snapshot.data;
  return (
    <Flex vertical gap={16}>
      <Flex justify="space-between" align="center" wrap gap={8}>
        <Flex vertical gap={4}>
          <Link href="/admin">← Admin Panel</Link>
          <Typography.Title level={2} style={{ margin: 0 }}>
            Operations
          </Typography.Title>
        </Flex>
        <Flex align="center" wrap gap={8}>
          <Typography.Text type="secondary" data-testid="updated-at">
            {data ? `Updated at ${time.format(new Date(data.at))}` : ''}
          </Typography.Text>
          <Button href={QUEUES_BOARD_PATH} target="_blank" rel="noopener noreferrer">
            Open queue board
          </Button>
        </Flex>
      </Flex>
      {snapshot.isError && (
        <Alert
          type="error"
          showIcon
          title="The operations snapshot could not be read"
          description={messageOf(snapshot.error, snapshot.error.message)}
          action={
            <Button size="small" onClick={() => void snapshot.refetch()}>
              Retry
            </Button>
          }
        />
      )}
      {data && data.problems.length > 0 && (
        <Alert
          type="warning"
          showIcon
          title="Problems"
          description={
            <ul style={{ margin: 0, paddingInlineStart: 20 }}>
              {data.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          }
        />
      )}
      {!data && snapshot.isLoading && (
        <Flex align="center" justify="center" style={{ minHeight: 240 }}>
          <Spin size="large" aria-label="Loading" />
        </Flex>
      )}
      {data && (
        <>
          <Part title="Security alerts">
            <Alerts alerts={data.alerts} />
          </Part>
          <Part title="Sign-in waits">
            <SignInWaits />
          </Part>
          <Part title="Services">
            <Services services={data.services} />
          </Part>
          <Part title="Queues">
            <Queues queues={data.queues} />
          </Part>
          <Part title="Streams">
            <Streams streams={data.streams} />
          </Part>
          <Part title="Consumers">
            <Consumers consumers={data.consumers} />
          </Part>
        </>
      )}
    </Flex>
  );
}

/**
 * The operations console (/admin/operations, ADMIN only; issue 19): the gateway's security alerts
 * (issue 34), the services' readiness, the BullMQ queues (and a way to bull-board, a page of its
 * own), the JetStream streams and their consumers, and whatever could not be read — refreshed
 * every OPERATIONS_REFRESH_MS.
 */
export default function Operations() {
  return (
    <AdminOnly>
      <Console />
    </AdminOnly>
  );
}
