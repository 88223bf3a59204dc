import { ApiError, Button, Flex, Spin } from '@nrad/shared';
import { Typography } from '@nrad/shared/ui';
import type { ReactNode } from 'react';
import { useLocation } from 'wouter';

export const NOT_FOUND_TEXT = "The record you're looking for doesn't exist or you don't have permission to view it.";

/** 404 (missing or another agency's record) or 400 (not an id): the record is not there for this user. */
export const isNotFound = (error: unknown) =>
  error instanceof ApiError && (error.status === 404 || error.status === 400);

export function Loading() {
  return (
    <Flex align="center" justify="center" style={{ minHeight: 240 }}>
      <Spin size="large" aria-label="Loading" />
    </Flex>
  );
}

/** SPEC §2 Record Details: "Record Not Found" and its text, with the way back. */
export function RecordNotFound({ title = 'Record Not Found' }: { title?: string }) {
  const [, navigate] = useLocation();
  return (
    <Flex vertical align="center" gap={12} style={{ padding: 48, textAlign: 'center' }}>
      <Typography.Title level={3} style={{ margin: 0 }}>
        {title}
      </Typography.Title>
      <Typography.Text type="secondary">{NOT_FOUND_TEXT}</Typography.Text>
      <Button type="primary" onClick={() => navigate('/')}>
        Back to Dashboard
      </Button>
    </Flex>
  );
}

/** A failure other than not-found (the service is down): say so, offer to try again. */
export function LoadFailed({ what, onRetry }: { what: string; onRetry: () => void }): ReactNode {
  return (
    <Flex vertical align="center" gap={12} style={{ padding: 48 }}>
      <Typography.Text>{`${what} could not be loaded.`}</Typography.Text>
      <Button onClick={onRetry}>Retry</Button>
    </Flex>
  );
}
