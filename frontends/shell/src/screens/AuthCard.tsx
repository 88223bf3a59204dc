import { Flex, theme } from '@nrad/shared';
import type { ReactNode } from 'react';

/** The centred card of the sign-in and register screens. */
export function AuthCard({ title, subtitle, children }: { title: string; subtitle?: string; children: ReactNode }) {
  const { token } = theme.useToken();
  return (
    <Flex align="center" justify="center" style={{ minHeight: '100vh', padding: 16, background: token.colorBgLayout }}>
      <main
        style={{
          width: '100%',
          maxWidth: 420,
          padding: 32,
          background: token.colorBgContainer,
          borderRadius: token.borderRadiusLG,
          boxShadow: token.boxShadowTertiary,
        }}
      >
        <h1 style={{ margin: '0 0 8px', textAlign: 'center', fontSize: token.fontSizeHeading3, fontWeight: 600 }}>
          {title}
        </h1>
        {subtitle && (
          <p style={{ margin: '0 0 16px', textAlign: 'center', color: token.colorTextSecondary }}>{subtitle}</p>
        )}
        {children}
      </main>
    </Flex>
  );
}
