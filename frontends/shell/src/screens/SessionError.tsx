import { Button, USER_QUERY_KEY } from '@nrad/shared';
import { useQueryClient } from '@tanstack/react-query';
import { Notice } from '../Notice.tsx';

/** The session check failed for another reason than "not signed in" (server down, network). */
export function SessionError() {
  const queryClient = useQueryClient();
  return (
    <Notice
      kind="warning"
      title="NRAD cannot be reached right now"
      action={
        <Button type="primary" onClick={() => queryClient.resetQueries({ queryKey: USER_QUERY_KEY })}>
          Retry
        </Button>
      }
    >
      Your session could not be checked. Check your connection and try again.
    </Notice>
  );
}
