import type { PublicUser } from '@nrad/contracts';
import { chunk, Flex, Spin, useChunk, useCurrentUser } from '@nrad/shared';
import { Redirect, Route, Switch } from 'wouter';
import { failureReason } from './remotes/loader.ts';
import { RemoteScreen, ScreenUnavailable } from './remotes/RemoteScreen.tsx';
import { REMOTE_ROUTES } from './remotes/routes.ts';
import { AccessDenied } from './screens/AccessDenied.tsx';
import { Login } from './screens/Login.tsx';
import { NotFound } from './screens/NotFound.tsx';
import { Register } from './screens/Register.tsx';
import { SessionError } from './screens/SessionError.tsx';

// The frame (header, navigation, user menu) and its antd components are a chunk of their own,
// asked for once the session check says someone is signed in: a visitor's first screen never loads
// it. Not React.lazy under Suspense, whose fallback stays at least 300 ms (chunk in @nrad/shared).
const frameChunk = chunk(() => import('./frame/Frame.tsx').then((m) => m.default));

function Loading() {
  return (
    <Flex align="center" justify="center" style={{ minHeight: '100vh' }}>
      <Spin size="large" aria-label="Loading" />
    </Flex>
  );
}

/**
 * SPEC §2 routing: a spinner while the session check loads; signed out, /register shows Register
 * and every other path Login; signed in, the frame with the screen of the path (each from its
 * remote; an ADMIN-only route shows anyone else Access denied without loading its remote) or
 * Page Not Found.
 */
export function Shell() {
  const { user, isLoading, error } = useCurrentUser();
  if (isLoading) return <Loading />;
  if (error) return <SessionError />;
  if (!user) {
    return (
      <Switch>
        <Route path="/register" component={Register} />
        <Route component={Login} />
      </Switch>
    );
  }
  return <SignedIn user={user} />;
}

/** The frame with the screen of the path, once the frame's chunk is in. */
function SignedIn({ user }: { user: PublicUser }) {
  const frame = useChunk(frameChunk);
  if (frame.status === 'failed') {
    return <ScreenUnavailable title="NRAD" failure={failureReason(frame.error)} onRetry={frame.retry} />;
  }
  if (frame.status === 'loading') return <Loading />;
  const Frame = frame.value;
  return (
    <Frame user={user}>
      <Switch>
        {REMOTE_ROUTES.map((r) => (
          <Route key={r.path} path={r.path}>
            {r.adminOnly && user.organization !== 'ADMIN' ? <AccessDenied /> : <RemoteScreen key={r.path} screen={r} />}
          </Route>
        ))}
        <Route path="/login">
          <Redirect to="/" replace />
        </Route>
        <Route path="/register">
          <Redirect to="/" replace />
        </Route>
        <Route component={NotFound} />
      </Switch>
    </Frame>
  );
}
