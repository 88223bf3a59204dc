import { ExclamationCircleOutlined, QuestionCircleOutlined } from '@ant-design/icons';
import { Flex, theme } from '@nrad/shared';
import type { ReactNode } from 'react';

/**
 * A centred message with an icon, a title, a line of explanation and an action (not-found, a
 * screen that cannot be loaded, a session that cannot be checked). antd's Result would do, but it
 * carries three large illustrations into the shell's first load.
 */
export function Notice({
  kind,
  title,
  children,
  action,
}: {
  kind: 'warning' | 'not-found';
  title: string;
  children: ReactNode;
  action: ReactNode;
}) {
  const { token } = theme.useToken();
  const Icon = kind === 'warning' ? ExclamationCircleOutlined : QuestionCircleOutlined;
  return (
    <Flex vertical align="center" gap={12} style={{ padding: '48px 16px', textAlign: 'center' }} role="alert">
      <Icon style={{ fontSize: 56, color: kind === 'warning' ? token.colorWarning : token.colorTextTertiary }} />
      <h2 style={{ margin: 0, fontSize: token.fontSizeHeading3, fontWeight: 600 }}>{title}</h2>
      <p style={{ margin: 0, maxWidth: 560, color: token.colorTextSecondary }}>{children}</p>
      {action}
    </Flex>
  );
}
