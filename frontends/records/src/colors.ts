/** The organizations' badge colours (SPEC §2) as colours to paint with: antd's blue, green, yellow, purple. */
export const ORGANIZATION_HEX: Readonly<Record<string, string>> = {
  BPS: '#1677ff',
  FIA: '#52c41a',
  CUS: '#d4b106',
  ADMIN: '#722ed1',
};
