import {
  ConfigProvider,
  createQueryClient,
  FontSizeProvider,
  ToastProvider,
  themeTokens,
  useFontSize,
  usePrefersReducedMotion,
} from '@nrad/shared';
import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Shell } from './Shell.tsx';

/**
 * antd's theme follows the chosen font size, so every screen of every remote scales with it, and
 * the system's reduced-motion setting, so a user who asked for less motion gets no animations.
 */
function Themed({ children }: { children: ReactNode }) {
  const { px } = useFontSize();
  const reducedMotion = usePrefersReducedMotion();
  return (
    <ConfigProvider theme={{ token: { ...themeTokens(px), motion: !reducedMotion } }}>
      <ToastProvider>{children}</ToastProvider>
    </ConfigProvider>
  );
}

/** Everything the shell and the remotes share: font size, theme and toasts, queries (wouter needs no provider). */
export function Root() {
  const [queryClient] = useState(createQueryClient);
  return (
    <FontSizeProvider>
      <Themed>
        <QueryClientProvider client={queryClient}>
          <Shell />
        </QueryClientProvider>
      </Themed>
    </FontSizeProvider>
  );
}
