import { Button, Flex, Spin } from '@nrad/shared';
import { Component, type ComponentType, type ErrorInfo, type ReactNode, useEffect, useState } from 'react';
import { Notice } from '../Notice.tsx';
import { loadedScreen, loadScreen } from './loader.ts';
import type { RemoteRoute } from './routes.ts';

/**
 * What the frame shows when a screen's remote cannot be loaded (not deployed, unreachable, or
 * broken): a clear message and a Retry button, never a blank page.
 */
export function RemoteUnavailable({ title, onRetry }: { title: string; onRetry: () => void }) {
  return (
    <Notice
      kind="warning"
      title={`${title} is not available right now`}
      action={
        <Button type="primary" onClick={onRetry}>
          Retry
        </Button>
      }
    >
      This part of NRAD could not be loaded. Check your connection and try again; if it keeps happening, tell your
      administrator.
    </Notice>
  );
}

/** Catches a remote screen that fails while rendering, so the frame stays. */
class ScreenBoundary extends Component<{ fallback: (reset: () => void) => ReactNode; children: ReactNode }> {
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

type State = { status: 'loading' } | { status: 'failed' } | { status: 'ready'; Screen: ComponentType };

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
        if (live) setState({ status: 'failed' });
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
  if (state.status === 'failed') return <RemoteUnavailable title={screen.title} onRetry={retry} />;
  const { Screen } = state;
  return (
    <ScreenBoundary fallback={(reset) => <RemoteUnavailable title={screen.title} onRetry={reset} />}>
      <Screen />
    </ScreenBoundary>
  );
}
