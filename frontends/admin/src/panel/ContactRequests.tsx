import {
  type ContactRequest,
  type ContactRequestList,
  ContactRequestListSchema,
  ContactRequestResolvedSchema,
  routes,
} from '@nrad/contracts';
import { Button, callApi, Flex, formatDateTime, messageOf, OrganizationBadge, Tag, useToast } from '@nrad/shared';
import { Card, Table, Typography } from '@nrad/shared/ui';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useIsAdmin } from '../access.tsx';
import { CONTACT_REQUESTS_KEY } from '../keys.ts';

/** Requests per page of the inbox. */
export const CONTACT_PAGE_SIZE = 10;

function inboxPage(offset: number) {
  return callApi(routes.auth.contactRequests, { query: { limit: CONTACT_PAGE_SIZE, offset } }).then((body) =>
    ContactRequestListSchema.parse(body),
  );
}

/**
 * The inbox of the agencies' messages to the administrator (issue 19; SPEC §2 only sends them):
 * open requests first, newest first; a row opens to its whole message; Mark Resolved closes one.
 * A resolved request stays where it is until the page is read again, so the admin sees it change.
 */
export function ContactRequests() {
  const isAdmin = useIsAdmin();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [pageNumber, setPageNumber] = useState(1);
  const [resolving, setResolving] = useState<string | null>(null);
  const key = [...CONTACT_REQUESTS_KEY, CONTACT_PAGE_SIZE, pageNumber] as const;
  const inbox = useQuery({
    queryKey: key,
    queryFn: () => inboxPage((pageNumber - 1) * CONTACT_PAGE_SIZE),
    placeholderData: keepPreviousData,
    staleTime: 0,
    enabled: isAdmin,
  });

  const resolve = async (request: ContactRequest) => {
    setResolving(request.id);
    try {
      const answer = ContactRequestResolvedSchema.parse(
        await callApi(routes.auth.resolveContactRequest, { params: { id: request.id } }),
      );
      queryClient.setQueryData<ContactRequestList>(key, (list) =>
        list
          ? {
              ...list,
              open: Math.max(0, list.open - (request.status === 'open' ? 1 : 0)),
              items: list.items.map((r) => (r.id === answer.request.id ? answer.request : r)),
            }
          : list,
      );
      // The other pages (and this one, when next read) follow the new order.
      await queryClient.invalidateQueries({ queryKey: CONTACT_REQUESTS_KEY, refetchType: 'none' });
    } catch (error) {
      toast.error('Error', messageOf(error, 'Failed to resolve the contact request'));
    } finally {
      setResolving(null);
    }
  };

  const open = inbox.data?.open ?? 0;
  return (
    <Card
      style={{ height: '100%' }}
      title={
        <Flex align="center" gap={8}>
          <span>Contact Requests</span>
          {open > 0 && (
            <Tag color="red" data-testid="open-requests">
              {`${open} open`}
            </Tag>
          )}
        </Flex>
      }
    >
      <Table<ContactRequest>
        rowKey="id"
        size="small"
        loading={inbox.isLoading || (inbox.isFetching && inbox.isPlaceholderData)}
        dataSource={inbox.data?.items ?? []}
        locale={{ emptyText: inbox.isError ? 'The contact requests could not be loaded.' : 'No contact requests' }}
        scroll={{ x: 'max-content' }}
        pagination={{
          current: pageNumber,
          pageSize: CONTACT_PAGE_SIZE,
          total: inbox.data?.total ?? 0,
          onChange: setPageNumber,
          showSizeChanger: false,
          hideOnSinglePage: true,
          size: 'small',
        }}
        expandable={{
          expandRowByClick: true,
          expandedRowRender: (r) => (
            <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', margin: 0 }} data-testid="contact-message">
              {r.message}
            </Typography.Paragraph>
          ),
        }}
        columns={[
          {
            title: 'From',
            key: 'from',
            render: (_, r) => (
              <Flex vertical gap={2}>
                <span>
                  <OrganizationBadge code={r.userOrganization} />
                  {r.userName}
                </span>
                <Typography.Text type="secondary">{r.userEmail}</Typography.Text>
              </Flex>
            ),
          },
          {
            title: 'Subject',
            dataIndex: 'subject',
            render: (subject: string, r) => (r.status === 'open' ? <strong>{subject}</strong> : subject),
          },
          { title: 'Received', dataIndex: 'createdAt', render: (v: string) => formatDateTime(v) },
          {
            title: 'Status',
            key: 'status',
            render: (_, r) =>
              r.status === 'open' ? (
                <Tag color="gold">Open</Tag>
              ) : (
                <Flex vertical gap={2}>
                  <span>
                    <Tag color="green">Resolved</Tag>
                  </span>
                  <Typography.Text type="secondary">{formatDateTime(r.resolvedAt)}</Typography.Text>
                </Flex>
              ),
          },
          {
            title: 'Actions',
            key: 'actions',
            render: (_, r) =>
              r.status === 'open' ? (
                <Button
                  size="small"
                  loading={resolving === r.id}
                  onClick={(event) => {
                    event.stopPropagation(); // not a click on the row (which opens the message)
                    void resolve(r);
                  }}
                >
                  Mark Resolved
                </Button>
              ) : null,
          },
        ]}
      />
    </Card>
  );
}
