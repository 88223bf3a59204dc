import type { TagProps } from 'antd';
import { organizationBadgeStyle, organizationColor, organizationName } from './organizations.ts';
import { Tag } from './ui-core.ts';

/**
 * An organization's badge (SPEC §2): its code in its colour (antd's preset tag, its text and
 * background set to reach 4.5:1), its full name on hover.
 */
export function OrganizationBadge({ code, style, ...rest }: { code: string } & Omit<TagProps, 'color' | 'children'>) {
  return (
    <Tag
      color={organizationColor(code)}
      title={organizationName(code)}
      style={{ ...organizationBadgeStyle(code), ...style }}
      {...rest}
    >
      {code}
    </Tag>
  );
}
