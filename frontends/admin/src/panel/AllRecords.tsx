import { type AdminRecord, routes } from '@nrad/contracts';
import {
  Button,
  callPage,
  Flex,
  formatDate,
  formatUsd,
  OrganizationBadge,
  useDeleteRecord,
  useToast,
} from '@nrad/shared';
import { Card, Modal, Space, Table, Typography } from '@nrad/shared/ui';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useIsAdmin } from '../access.tsx';
import { ADMIN_RECORDS_KEY } from '../keys.ts';
import { countDeleted } from './AgencyCounts.tsx';

/** Rows per page of All Agency Records: one screenful, whatever the number of records. */
export const RECORDS_PAGE_SIZE = 25;
export const EDIT_NOT_IMPLEMENTED = 'Edit functionality not yet implemented';

/** One page of GET /api/admin/records (newest first): after `cursor`, or the first. */
function recordsPage(cursor: string | undefined) {
  return callPage(routes.records.adminList, { query: { limit: RECORDS_PAGE_SIZE, cursor } });
}

/**
 * SPEC §2 Admin Panel: All Agency Records (Agency, Incident #, Suspect, Date, Amount, Actions),
 * read a page at a time with the records service's cursors — the panel stays as fast with a
 * hundred thousand records as with ten. Previous goes back through the cursors already seen.
 */
export function AllRecords() {
  const isAdmin = useIsAdmin();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [modal, modalHolder] = Modal.useModal();
  const deleteRecord = useDeleteRecord(modal);
  // The cursor of each page seen so far; the last is the page shown (the first page has none).
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const pageIndex = cursors.length - 1;
  const cursor = cursors[pageIndex];
  const page = useQuery({
    queryKey: [...ADMIN_RECORDS_KEY, RECORDS_PAGE_SIZE, cursor ?? ''],
    queryFn: () => recordsPage(cursor),
    placeholderData: keepPreviousData,
    staleTime: 0,
    enabled: isAdmin,
  });
  const rows = page.data?.items ?? [];
  const total = page.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / RECORDS_PAGE_SIZE));

  // The last records of a page deleted: show the page before it.
  useEffect(() => {
    if (pageIndex > 0 && page.isSuccess && !page.isPlaceholderData && page.data.items.length === 0) {
      setCursors((c) => c.slice(0, -1));
    }
  }, [pageIndex, page.isSuccess, page.isPlaceholderData, page.data]);

  return (
    <Card
      title="All Agency Records"
      extra={
        <Typography.Text type="secondary" data-testid="records-total">
          {page.data ? `${total.toLocaleString('en-US')} record${total === 1 ? '' : 's'}` : ''}
        </Typography.Text>
      }
    >
      {modalHolder}
      <Table<AdminRecord>
        rowKey="id"
        size="small"
        loading={page.isLoading || (page.isFetching && page.isPlaceholderData)}
        dataSource={rows}
        pagination={false}
        locale={{ emptyText: page.isError ? 'The records could not be loaded.' : 'No records found' }}
        scroll={{ x: 'max-content' }}
        columns={[
          {
            title: 'Agency',
            dataIndex: 'organization',
            render: (code: string) => <OrganizationBadge code={code} />,
          },
          { title: 'Incident #', dataIndex: 'incidentNumber' },
          { title: 'Suspect', dataIndex: 'suspectName' },
          { title: 'Date', dataIndex: 'incidentDate', render: (v: string) => formatDate(v) },
          { title: 'Amount', dataIndex: 'amount', align: 'right', render: (v: string) => formatUsd(v) },
          {
            title: 'Actions',
            key: 'actions',
            render: (_, r) => (
              <Space size="small">
                <Button size="small" onClick={() => toast.success(EDIT_NOT_IMPLEMENTED)}>
                  Edit
                </Button>
                <Button
                  size="small"
                  danger
                  onClick={() => deleteRecord(r, () => countDeleted(queryClient, r.organization))}
                >
                  Delete
                </Button>
              </Space>
            ),
          },
        ]}
      />
      <Flex justify="space-between" align="center" wrap gap={8} style={{ marginTop: 16 }}>
        <Typography.Text type="secondary" data-testid="records-page">
          {page.data ? `Page ${pageIndex + 1} of ${pages.toLocaleString('en-US')}` : ''}
        </Typography.Text>
        <Space>
          <Button disabled={pageIndex === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
            Previous
          </Button>
          <Button
            disabled={!page.data?.nextCursor || page.isPlaceholderData}
            onClick={() => setCursors((c) => [...c, page.data?.nextCursor])}
          >
            Next
          </Button>
        </Space>
      </Flex>
    </Card>
  );
}
