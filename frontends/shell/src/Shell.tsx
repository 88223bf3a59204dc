import { Flex, Spin, useCurrentUser } from '@nrad/shared';
import { lazy, Suspense } from 'react';
import { Redirect, Route, Switch } from 'wouter';
import { RemoteScreen } from './remotes/RemoteScreen.tsx';
import { REMOTE_ROUTES } from './remotes/routes.ts';
import { AccessDenied } from './screens/AccessDenied.tsx';
import { Login } from './screens/Login.tsx';
import { NotFound } from './screens/NotFound.tsx';
import { Register } from './screens/Register.tsx';
import { SessionError } from './screens/SessionError.tsx';

// The frame (header, navigation, user menu) and its antd components load once someone is signed
// in: a visitor's first screen does not wait for them.
const Frame = lazy(() => import('./frame/Frame.tsx'));

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
  return (
    <Suspense fallback={<Loading />}>
      <Frame user={user}>
        <Switch>
          {REMOTE_ROUTES.map((r) => (
            <Route key={r.path} path={r.path}>
              {r.adminOnly && user.organization !== 'ADMIN' ? (
                <AccessDenied />
              ) : (
                <RemoteScreen key={r.path} screen={r} />
              )}
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
    </Suspense>
  );
}
