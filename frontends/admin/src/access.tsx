import { ADMIN_ACCESS_DENIED } from '@nrad/contracts';
import { Flex, Spin, useCurrentUser } from '@nrad/shared';
import { Alert } from '@nrad/shared/ui';
import type { ReactNode } from 'react';

/** Whether the signed-in user is ADMIN: every admin query is `enabled` only then (SPEC §6). */
export function useIsAdmin(): boolean {
  return useCurrentUser().user?.organization === 'ADMIN';
}

/**
 * ADMIN's screens: their content (and so every query in it) is rendered only for ADMIN; anyone
 * else gets SPEC's access-denied text and no admin call leaves the browser.
 */
export function AdminOnly({ children }: { children: ReactNode }) {
  const { user, isLoading } = useCurrentUser();
  if (isLoading) {
    return (
      <Flex align="center" justify="center" style={{ minHeight: 240 }}>
        <Spin size="large" aria-label="Loading" />
      </Flex>
    );
  }
  if (user?.organization !== 'ADMIN') return <Alert type="error" showIcon title={ADMIN_ACCESS_DENIED} />;
  return children;
}
