import { type CaseRecord, type CountryStat, type DashboardStats, routes } from '@nrad/contracts';
import {
  callApi,
  chunk,
  Flex,
  formatDate,
  formatUsd,
  organizationName,
  RECORDS_KEY,
  recordAmount,
  Spin,
  Tag,
  useChunk,
  useCurrentUser,
} from '@nrad/shared';
import { Card, Table, Typography } from '@nrad/shared/ui';
import { useQuery } from '@tanstack/react-query';
import { Component, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import GenerateReport from './GenerateReport.tsx';

/** SPEC §9: the dashboard shows 5 recent records and the top 10 countries. */
export const RECENT_RECORDS = 5;
export const TOP_COUNTRIES = 10;
export const STATS_KEY = [routes.stats.dashboard.path] as const;
export const COUNTRY_STATS_KEY = [routes.stats.countries.path] as const;
export const NO_COUNTRIES_TEXT = 'No incidents with an international nexus yet.';

// echarts and the country shapes load once the figures' cards are drawn: the cards never wait for
// the map. Not React.lazy under Suspense, whose fallback stays at least 300 ms (chunk in @nrad/shared).
const mapChunk = chunk(() => import('./WorldMap.tsx').then((m) => m.WorldMap));

export const MAP_FAILED_TEXT = 'The map could not be drawn. The figures and lists on this page are not affected.';

/** A map that cannot be drawn (its code failed to load, the browser refused) never takes the page with it. */
class MapBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? (
      <Typography.Text type="secondary">{MAP_FAILED_TEXT}</Typography.Text>
    ) : (
      this.props.children
    );
  }
}

/** The world map once its code is in; a spinner before, and a line saying so if it could not load. */
function MapOf({ countries }: { countries: readonly CountryStat[] }) {
  const map = useChunk(mapChunk);
  if (map.status === 'failed') return <Typography.Text type="secondary">{MAP_FAILED_TEXT}</Typography.Text>;
  if (map.status === 'loading') return <Spin aria-label="Loading the map" />;
  const WorldMap = map.value;
  return <WorldMap countries={countries} />;
}

function StatCard({ title, value, testId }: { title: string; value: ReactNode; testId: string }) {
  return (
    <Card size="small" data-testid={testId}>
      <Typography.Text type="secondary">{title}</Typography.Text>
      <div style={{ fontSize: '1.75em', fontWeight: 600, marginTop: 4 }}>{value}</div>
    </Card>
  );
}

/**
 * SPEC §2 Dashboard (/ and /dashboard): the agency's figures, its incidents on a world map, its
 * recent records, and the Generate Report card with the agency's earlier reports.
 */
export default function Dashboard() {
  const [, navigate] = useLocation();
  const { user } = useCurrentUser();
  const stats = useQuery<DashboardStats>({ queryKey: STATS_KEY, staleTime: 0 });
  const countries = useQuery<CountryStat[]>({ queryKey: COUNTRY_STATS_KEY, staleTime: 0 });
  const recent = useQuery<CaseRecord[]>({
    queryKey: [RECORDS_KEY, 'recent', RECENT_RECORDS],
    staleTime: 0,
    queryFn: () => callApi(routes.records.list, { query: { limit: RECENT_RECORDS } }),
  });

  const figure = (value: ReactNode) => (stats.data ? value : stats.isError ? '—' : <Spin size="small" />);
  const top = (countries.data ?? []).slice(0, TOP_COUNTRIES);
  return (
    <Flex vertical gap={16}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {`${organizationName(user?.organization)} Records Overview`}
      </Typography.Title>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(200px, 1fr))', gap: 16 }}>
        <StatCard testId="stat-total" title="Total Records" value={figure(stats.data?.totalRecords)} />
        <StatCard testId="stat-month" title="This Month" value={figure(stats.data?.thisMonth)} />
        <StatCard
          testId="stat-international"
          title="International Cases"
          value={figure(stats.data?.internationalCases)}
        />
        <StatCard
          testId="stat-seized"
          title={`Total Seized Amount (${stats.data?.seizedYear ?? new Date().getUTCFullYear()})`}
          value={figure(formatUsd(stats.data?.totalSeizedAmount))}
        />
      </div>
      <Card title="Global Incident Distribution">
        <MapBoundary>
          <MapOf countries={countries.data ?? []} />
        </MapBoundary>
        <Typography.Title level={5} style={{ marginTop: 16 }}>
          Top Countries by Incidents
        </Typography.Title>
        {top.length === 0 ? (
          <Typography.Text type="secondary">{countries.isLoading ? '' : NO_COUNTRIES_TEXT}</Typography.Text>
        ) : (
          <Flex wrap gap={8} data-testid="top-countries">
            {top.map((c) => (
              <Tag key={c.country} color="red" data-testid="top-country">
                {c.country} <strong>{c.count}</strong>
              </Tag>
            ))}
          </Flex>
        )}
      </Card>
      <Card title="Recent Records">
        <Table<CaseRecord>
          rowKey="id"
          size="small"
          loading={recent.isLoading}
          dataSource={recent.data ?? []}
          pagination={false}
          locale={{ emptyText: 'No records found' }}
          scroll={{ x: true }}
          onRow={(r) => ({ onClick: () => navigate(`/record/${r.id}`), style: { cursor: 'pointer' } })}
          columns={[
            { title: 'Incident #', dataIndex: 'incidentNumber' },
            { title: 'Suspect', dataIndex: 'suspectName' },
            { title: 'Date', dataIndex: 'incidentDate', render: (v: string) => formatDate(v) },
            { title: 'Amount', key: 'amount', align: 'right', render: (_, r) => recordAmount(r) },
            { title: 'International', dataIndex: 'internationalNexus', render: (v: boolean) => (v ? 'Yes' : 'No') },
            {
              title: 'Linked',
              dataIndex: 'linked',
              render: (v: boolean) => (v ? <Tag color="blue">Linked</Tag> : 'No'),
            },
          ]}
        />
      </Card>
      <GenerateReport />
    </Flex>
  );
}
