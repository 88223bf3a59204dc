import { ADMIN_ACCESS_DENIED } from '@nrad/contracts';
import { Button } from '@nrad/shared';
import { useLocation } from 'wouter';
import { Notice } from '../Notice.tsx';

/** SPEC §2/§6: what a signed-in user who is not ADMIN sees on an ADMIN-only route. */
export function AccessDenied() {
  const [, navigate] = useLocation();
  return (
    <Notice
      kind="warning"
      title={ADMIN_ACCESS_DENIED}
      action={
        <Button type="primary" onClick={() => navigate('/')}>
          Return to Dashboard
        </Button>
      }
    >
      This page is only for the system administrators of NRAD.
    </Notice>
  );
}
