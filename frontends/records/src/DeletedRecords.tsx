import type { CaseRecord } from '@nrad/contracts';
import {
  apiPage,
  apiRequest,
  Button,
  Flex,
  formatMoment,
  formatUsd,
  type Page,
  RECORDS_KEY,
  recordsChanged,
  useToast,
} from '@nrad/shared';
import { Card, Modal, Table, Typography } from '@nrad/shared/ui';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { LoadFailed } from './common.tsx';

const PAGE_SIZE = 100;
export const RESTORE_CONFIRM_TITLE = 'Restore this record?';

/** SPEC §2 Deleted Records (/deleted-records): the agency's deleted records, each restorable. */
export default function DeletedRecords() {
  const toast = useToast();
  const queryClient = useQueryClient();
  const [modal, modalHolder] = Modal.useModal();
  const [restoring, setRestoring] = useState<string | null>(null);
  const list = useInfiniteQuery<Page<CaseRecord>>({
    queryKey: [RECORDS_KEY, 'deleted'],
    staleTime: 0,
    initialPageParam: undefined,
    queryFn: ({ pageParam }) =>
      apiPage<CaseRecord>(
        'GET',
        `/api/records/deleted?limit=${PAGE_SIZE}${pageParam ? `&cursor=${encodeURIComponent(String(pageParam))}` : ''}`,
      ),
    getNextPageParam: (last) => last.nextCursor,
  });

  const restore = (record: CaseRecord) =>
    modal.confirm({
      title: RESTORE_CONFIRM_TITLE,
      content: `${record.incidentNumber} (${record.suspectName}) returns to the lists and searches.`,
      okText: 'Restore',
      cancelText: 'Cancel',
      onOk: async () => {
        setRestoring(record.id);
        try {
          await apiRequest('POST', `/api/records/${record.id}/restore`);
          toast.success('Success', 'Record restored successfully');
          await recordsChanged(queryClient);
        } catch {
          toast.error('Error', 'Failed to restore record');
        } finally {
          setRestoring(null);
        }
      },
    });

  if (list.isError) return <LoadFailed what="The deleted records" onRetry={() => void list.refetch()} />;
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  const total = list.data?.pages[0]?.total ?? 0;
  return (
    <Flex vertical gap={16}>
      {modalHolder}
      <Typography.Title level={2} style={{ margin: 0 }}>
        {`Deleted Records (${total})`}
      </Typography.Title>
      <Card>
        <Table<CaseRecord>
          rowKey="id"
          loading={list.isLoading}
          dataSource={rows}
          pagination={false}
          locale={{ emptyText: 'No deleted records found' }}
          scroll={{ x: true }}
          columns={[
            { title: 'Incident Number', dataIndex: 'incidentNumber' },
            { title: 'Suspect Name', dataIndex: 'suspectName' },
            { title: 'Crime Type', dataIndex: 'crimeType', render: (v: string | null) => v ?? '' },
            {
              title: 'Country',
              dataIndex: 'country',
              render: (v: string, r) => (r.internationalNexus ? v : ''),
            },
            { title: 'Case Amount', dataIndex: 'caseAmount', align: 'right', render: (v: string) => formatUsd(v) },
            { title: 'Deleted Date', dataIndex: 'deletedAt', render: (v: string | null) => formatMoment(v, 'N/A') },
            {
              title: 'Actions',
              key: 'actions',
              render: (_, r) => (
                <Button size="small" onClick={() => restore(r)} loading={restoring === r.id}>
                  Restore
                </Button>
              ),
            },
          ]}
        />
        {list.hasNextPage && (
          <Flex justify="center" style={{ marginTop: 16 }}>
            <Button onClick={() => void list.fetchNextPage()} loading={list.isFetchingNextPage}>
              {`Show more (${rows.length} of ${total})`}
            </Button>
          </Flex>
        )}
      </Card>
    </Flex>
  );
}
