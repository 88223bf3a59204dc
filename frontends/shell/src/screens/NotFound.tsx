import { Button } from '@nrad/shared';
import { useLocation } from 'wouter';
import { Notice } from '../Notice.tsx';

/** SPEC §2: any other signed-in path. */
export function NotFound() {
  const [, navigate] = useLocation();
  return (
    <Notice
      kind="not-found"
      title="Page Not Found"
      action={
        <Button type="primary" onClick={() => navigate('/')}>
          Return to Dashboard
        </Button>
      }
    >
      The page you are looking for does not exist.
    </Notice>
  );
}
