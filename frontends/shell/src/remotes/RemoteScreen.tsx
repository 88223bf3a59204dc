import { Button, Flex, Spin } from '@nrad/shared';
import { Component, type ComponentType, type ErrorInfo, type ReactNode, useEffect, useState } from 'react';
import { Notice } from '../Notice.tsx';
import { failureReason, type LoadFailureReason, loadedScreen, loadScreen } from './loader.ts';
import type { RemoteRoute } from './routes.ts';

/** Why a screen is not shown: it could not be loaded (and why), or it failed while rendering. */
export type ScreenFailure = LoadFailureReason | 'crashed';

/** What the user reads for each failure: the truth about the cause, and what to do. */
export const FAILURE_TEXT: Record<ScreenFailure, string> = {
  network: 'The NRAD server could not be reached to load this screen. Check your connection, then select Retry.',
  'not-deployed': 'This screen is not installed on this NRAD server. Tell your administrator.',
  server:
    'The NRAD server could not provide this screen (it may be being updated). Try again in a few minutes; if it keeps happening, tell your administrator.',
  broken: 'This screen was downloaded but could not start. Try again; if it keeps happening, tell your administrator.',
  crashed:
    'Something went wrong while showing this screen. Reload the screen with Retry; if it happens again, tell your administrator.',
};

/**
 * What the frame shows instead of a screen that cannot be shown: what happened (not deployed,
 * unreachable, a server error, a crash) and a Retry button, never a blank page.
 */
export function ScreenUnavailable({
  title,
  failure,
  onRetry,
}: {
  title: string;
  failure: ScreenFailure;
  onRetry: () => void;
}) {
  return (
    <Notice
      kind="warning"
      title={failure === 'crashed' ? `${title} stopped because of an error` : `${title} is not available right now`}
      action={
        <Button type="primary" onClick={onRetry}>
          Retry
        </Button>
      }
    >
      {FAILURE_TEXT[failure]}
    </Notice>
  );
}

/** Catches a remote screen that fails while rendering, so the frame stays. */
export class ScreenBoundary extends Component<{ fallback: (reset: () => void) => ReactNode; children: ReactNode }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('A screen failed while rendering', error, info.componentStack);
  }
  override render() {
    return this.state.failed ? this.props.fallback(() => this.setState({ failed: false })) : this.props.children;
  }
}

type State =
  | { status: 'loading' }
  | { status: 'failed'; reason: LoadFailureReason }
  | { status: 'ready'; Screen: ComponentType };

/** A signed-in route's screen, loaded from its remote. */
export function RemoteScreen({ screen }: { screen: RemoteRoute }) {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<State>(() => {
    const Screen = loadedScreen(screen.remote, screen.module);
    return Screen ? { status: 'ready', Screen } : { status: 'loading' };
  });
  useEffect(() => {
    let live = true;
    const Screen = loadedScreen(screen.remote, screen.module);
    if (Screen && attempt === 0) {
      setState({ status: 'ready', Screen });
      return;
    }
    setState({ status: 'loading' });
    loadScreen(screen.remote, screen.module, attempt > 0).then(
      (Loaded) => live && setState({ status: 'ready', Screen: Loaded }),
      (error: unknown) => {
        console.error(`Could not load ${screen.remote}/${screen.module}`, error);
        if (live) setState({ status: 'failed', reason: failureReason(error) });
      },
    );
    return () => {
      live = false;
    };
  }, [screen.remote, screen.module, attempt]);

  const retry = () => setAttempt((n) => n + 1);
  if (state.status === 'loading') {
    return (
      <Flex align="center" justify="center" style={{ minHeight: 240 }}>
        <Spin size="large" aria-label="Loading" />
      </Flex>
    );
  }
  if (state.status === 'failed') {
    return <ScreenUnavailable title={screen.title} failure={state.reason} onRetry={retry} />;
  }
  const { Screen } = state;
  return (
    <ScreenBoundary fallback={(reset) => <ScreenUnavailable title={screen.title} failure="crashed" onRetry={reset} />}>
      <Screen />
    </ScreenBoundary>
  );
}
