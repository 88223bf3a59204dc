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

// The frame (header, navigation, user menu) and its antd components are a chunk of their own, asked
// for at once, beside the session check: a visitor's first screen does not wait for it, and a
// signed-in user's screen rarely does (it is read from the browser's cache in milliseconds). Not
// React.lazy under Suspense, whose fallback stays at least 300 ms (see chunk in @nrad/shared).
const frameChunk = chunk(() => import('./frame/Frame.tsx').then((m) => m.default));
frameChunk.load().catch(() => {}); // a failure is told when the frame is needed (useChunk)

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
  const frame = useChunk(frameChunk);
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
