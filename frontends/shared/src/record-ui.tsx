/**
 * What the record screens share (Search, Deleted Records, Record Details, the dashboard's Recent
 * Records): reading a list a page at a time (the records service's `?limit=&cursor=`), "Show more",
 * the Linked mark, and deleting a record after confirmation.
 */
import { type CaseRecord, PAGE_DEFAULT_LIMIT, type RecordSearch, routes } from '@nrad/contracts';
import { type QueryKey, useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import type { ModalFuncProps } from 'antd';
import { useMemo } from 'react';
import { callApi, callPage, type Page } from './api.ts';
import { recordsChanged } from './records.ts';
import { useToast } from './toast.tsx';
import { Button, Flex, Tag } from './ui-core.ts';

/** One page of a records list: the first, or the one after `cursor` (`filters` for the search). */
export function recordsPage(
  route: typeof routes.records.deleted | typeof routes.records.search | typeof routes.records.list,
  cursor?: string,
  filters?: RecordSearch,
): Promise<Page<CaseRecord>> {
  const query = { limit: PAGE_DEFAULT_LIMIT, cursor };
  return route === routes.records.search
    ? callPage(routes.records.search, { query, body: filters })
    : callPage(route, { query });
}

const NO_ROWS: readonly CaseRecord[] = [];

/** A records list read page by page; `rows` are the pages read so far, `total` the whole list's size. */
export function usePagedRecords(options: {
  queryKey: QueryKey;
  page: (cursor?: string) => Promise<Page<CaseRecord>>;
  enabled?: boolean;
  staleTime?: number;
}) {
  const list = useInfiniteQuery<Page<CaseRecord>>({
    queryKey: options.queryKey,
    enabled: options.enabled ?? true,
    staleTime: options.staleTime ?? 0,
    initialPageParam: undefined,
    queryFn: ({ pageParam }) => options.page(pageParam as string | undefined),
    getNextPageParam: (last) => last.nextCursor,
  });
  // The same array while the pages are the same (react-query keeps `data` while nothing changed): a
  // table given it draws its rows again only when they change.
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? NO_ROWS, [list.data]);
  return { list, rows, total: list.data?.pages[0]?.total ?? 0 };
}

/** "Show more (n of total)" under a list with more pages; nothing when there are none. */
export function ShowMore({ paged }: { paged: ReturnType<typeof usePagedRecords> }) {
  const { list, rows, total } = paged;
  if (!list.hasNextPage) return null;
  return (
    <Flex justify="center" style={{ marginTop: 16 }}>
      <Button onClick={() => void list.fetchNextPage()} loading={list.isFetchingNextPage}>
        {`Show more (${rows.length} of ${total})`}
      </Button>
    </Flex>
  );
}

/** The Linked column: a "Linked" tag naming the linked organizations on hover, else "No". */
export function LinkedMark({ record }: { record: Pick<CaseRecord, 'linked' | 'linkedOrganizations'> }) {
  return record.linked ? (
    <Tag color="blue" title={record.linkedOrganizations.join(', ')}>
      Linked
    </Tag>
  ) : (
    'No'
  );
}

export const DELETE_CONFIRM_TITLE = 'Delete this record?';
export const DELETE_CONFIRM_TEXT =
  'The record leaves the lists. This can be undone: restore it from View Deleted Records in the settings menu.';

/**
 * Deleting a record (SPEC §2, §5): a confirmation naming it and saying how to undo it, then the
 * DELETE, SPEC §8's toast, and every record query refreshed. `modal` is the screen's
 * `Modal.useModal()` (antd's Modal belongs to `@nrad/shared/ui`); `onDeleted` runs before the
 * refresh, so a screen showing the record can leave it first.
 */
export function useDeleteRecord(modal: { confirm(props: ModalFuncProps): unknown }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  return (record: Pick<CaseRecord, 'id' | 'incidentNumber' | 'suspectName'>, onDeleted?: () => void) =>
    modal.confirm({
      title: DELETE_CONFIRM_TITLE,
      content: (
        <>
          <p>{`${record.incidentNumber} (${record.suspectName})`}</p>
          <p>{DELETE_CONFIRM_TEXT}</p>
        </>
      ),
      okText: 'Delete',
      okButtonProps: { danger: true },
      cancelText: 'Cancel',
      onOk: async () => {
        try {
          await callApi(routes.records.delete, { params: { id: record.id } });
        } catch {
          toast.error('Error', 'Failed to delete record');
          return;
        }
        toast.success('Success', 'Record deleted successfully');
        onDeleted?.();
        await recordsChanged(queryClient);
      },
    });
}
