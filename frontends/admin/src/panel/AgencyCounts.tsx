import { type AdminStats, AdminStatsSchema, routes } from '@nrad/contracts';
import { callApi, OrganizationBadge, organizationName, Spin } from '@nrad/shared';
import { Card, Col, Row, Typography } from '@nrad/shared/ui';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { useIsAdmin } from '../access.tsx';
import { ADMIN_STATS_KEY } from '../keys.ts';

/** The agencies SPEC §2 counts, and where each one's count is in GET /api/admin/stats. */
export const COUNTED_AGENCIES = [
  { code: 'BPS', field: 'bpsRecords' },
  { code: 'FIA', field: 'fiaRecords' },
  { code: 'CUS', field: 'cusRecords' },
] as const satisfies ReadonlyArray<{ code: string; field: keyof AdminStats }>;

/**
 * A record of `organization` was deleted: its count drops at once. The stats service learns of
 * the delete from an event a moment later, so the figures are marked stale (read again when the
 * panel is next opened) rather than re-read now, which could still answer the old count.
 */
export function countDeleted(queryClient: QueryClient, organization: string): void {
  const agency = COUNTED_AGENCIES.find((a) => a.code === organization);
  if (agency) {
    queryClient.setQueryData<AdminStats>(ADMIN_STATS_KEY, (stats) =>
      stats ? { ...stats, [agency.field]: Math.max(0, stats[agency.field] - 1) } : stats,
    );
  }
  void queryClient.invalidateQueries({ queryKey: ADMIN_STATS_KEY, refetchType: 'none' });
}

/** SPEC §2 Admin Panel: the counts of BPS, FIA and CUS records (non-deleted, every agency). */
export function AgencyCounts() {
  const isAdmin = useIsAdmin();
  const stats = useQuery({
    queryKey: ADMIN_STATS_KEY,
    queryFn: async () => AdminStatsSchema.parse(await callApi(routes.stats.admin)),
    staleTime: 0,
    enabled: isAdmin,
  });
  return (
    <Row gutter={[16, 16]}>
      {COUNTED_AGENCIES.map(({ code, field }) => (
        <Col key={code} xs={24} sm={8}>
          <Card size="small" data-testid={`count-${code}`}>
            <OrganizationBadge code={code} />
            <Typography.Text type="secondary">{`${organizationName(code)} records`}</Typography.Text>
            <div style={{ fontSize: '1.75em', fontWeight: 600, marginTop: 4 }} data-testid={`count-${code}-value`}>
              {stats.data ? stats.data[field].toLocaleString('en-US') : stats.isError ? '—' : <Spin size="small" />}
            </div>
          </Card>
        </Col>
      ))}
    </Row>
  );
}
