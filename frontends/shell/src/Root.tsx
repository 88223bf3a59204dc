import {
  ConfigProvider,
  createQueryClient,
  FontSizeProvider,
  ToastProvider,
  themeTokens,
  useFontSize,
} from '@nrad/shared';
import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Shell } from './Shell.tsx';

/** antd's theme follows the chosen font size, so every screen of every remote scales with it. */
function Themed({ children }: { children: ReactNode }) {
  const { px } = useFontSize();
  return (
    <ConfigProvider theme={{ token: themeTokens(px) }}>
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
