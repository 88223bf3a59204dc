import { type CaseRecord, routes } from '@nrad/contracts';
import {
  Button,
  callApi,
  Flex,
  formatMoment,
  formatUsd,
  RECORDS_KEY,
  recordsChanged,
  recordsPage,
  ShowMore,
  usePagedRecords,
  useToast,
} from '@nrad/shared';
import { Card, Modal, Table, Typography } from '@nrad/shared/ui';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { LoadFailed } from './common.tsx';

export const RESTORE_CONFIRM_TITLE = 'Restore this record?';

/** SPEC §2 Deleted Records (/deleted-records): the agency's deleted records, each restorable. */
export default function DeletedRecords() {
  const toast = useToast();
  const queryClient = useQueryClient();
  const [modal, modalHolder] = Modal.useModal();
  const [restoring, setRestoring] = useState<string | null>(null);
  const paged = usePagedRecords({
    queryKey: [RECORDS_KEY, 'deleted'],
    page: (cursor) => recordsPage(routes.records.deleted, cursor),
  });
  const { list, rows, total } = paged;

  const restore = (record: CaseRecord) =>
    modal.confirm({
      title: RESTORE_CONFIRM_TITLE,
      content: `${record.incidentNumber} (${record.suspectName}) returns to the lists and searches.`,
      okText: 'Restore',
      cancelText: 'Cancel',
      onOk: async () => {
        setRestoring(record.id);
        try {
          await callApi(routes.records.restore, { params: { id: record.id } });
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
        <ShowMore paged={paged} />
      </Card>
    </Flex>
  );
}
