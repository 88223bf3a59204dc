import { DownOutlined, UserOutlined } from '@ant-design/icons';
import { type PublicUser, routes } from '@nrad/contracts';
import {
  Button,
  callApi,
  Flex,
  Layout,
  OrganizationBadge,
  organizationName,
  POSSIBLE_MATCHES_KEY,
  Popover,
  theme,
  useToast,
} from '@nrad/shared';
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { DATABASE_TITLE } from '../constants.ts';
import { activeItem, navigationItems } from './navigation.ts';

/** How long the sign-out toast shows before the page reloads at /. */
const SIGN_OUT_RELOAD_MS = 600;

/** The user menu: Settings, and Sign Out ("Signing out..." and disabled while it runs). */
function UserMenu({ user }: { user: PublicUser }) {
  const toast = useToast();
  const [, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);

  const signOut = async () => {
    setSigningOut(true);
    try {
      await callApi(routes.session.logout);
      toast.success('Success', 'Successfully logged out');
      setTimeout(() => window.location.assign('/'), SIGN_OUT_RELOAD_MS);
    } catch {
      toast.error('Error', 'Failed to logout');
      setSigningOut(false);
    }
  };

  const items = (
    <Flex vertical role="menu" aria-label="User menu" style={{ minWidth: 140 }}>
      <Button
        type="text"
        role="menuitem"
        style={{ textAlign: 'left', justifyContent: 'flex-start' }}
        onClick={() => {
          setOpen(false);
          navigate('/settings');
        }}
      >
        Settings
      </Button>
      <Button
        type="text"
        role="menuitem"
        style={{ textAlign: 'left', justifyContent: 'flex-start' }}
        disabled={signingOut}
        onClick={() => void signOut()}
      >
        {signingOut ? 'Signing out...' : 'Sign Out'}
      </Button>
    </Flex>
  );
  return (
    <Popover content={items} trigger="click" placement="bottomRight" open={open} onOpenChange={setOpen} arrow={false}>
      <Button type="text" icon={<UserOutlined />} aria-haspopup="menu" aria-expanded={open}>
        <span data-testid="user-name">{user.name}</span> <DownOutlined />
      </Button>
    </Popover>
  );
}

/** antd's red-7: white on it is 5.57:1 (antd's colorError, red-5, gives 3.27:1, under WCAG's 4.5:1). */
const REVIEW_COUNT_BACKGROUND = '#cf1322';

/** How often the navigation asks how many possible matches await the user (ms). */
const REVIEW_COUNT_MS = 60_000;

/** SPEC §2 top navigation, the active item highlighted; Review with its count while there is any. */
function Navigation({ user }: { user: PublicUser }) {
  const [pathname] = useLocation();
  const { token } = theme.useToken();
  const active = activeItem(pathname);
  const toReview = useQuery({
    queryKey: [POSSIBLE_MATCHES_KEY, 'count'],
    queryFn: () => callApi(routes.linking.possibleMatchCount),
    refetchInterval: REVIEW_COUNT_MS,
  }).data?.open;
  return (
    <nav
      aria-label="Main navigation"
      style={{
        display: 'flex',
        flexWrap: 'wrap', // a phone's width: the items take a second line instead of overflowing
        gap: 4,
        padding: '0 16px',
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorderSecondary}`,
      }}
    >
      {navigationItems(user.organization, toReview, active === '/review').map((item) => {
        const current = item.key === active;
        return (
          <Link
            key={item.key}
            href={item.key}
            aria-current={current ? 'page' : undefined}
            aria-label={item.count ? `${item.label}, ${item.count} to decide` : undefined}
            style={{
              padding: '12px 16px',
              color: current ? token.colorPrimary : token.colorText,
              borderBottom: `2px solid ${current ? token.colorPrimary : 'transparent'}`,
              fontWeight: current ? 600 : 400,
              textDecoration: 'none',
            }}
          >
            {item.label}
            {item.count ? (
              <span
                data-testid="review-count"
                style={{
                  marginLeft: 6,
                  padding: '0 7px',
                  borderRadius: 10,
                  fontSize: token.fontSizeSM,
                  lineHeight: '20px',
                  display: 'inline-block',
                  color: '#ffffff',
                  background: REVIEW_COUNT_BACKGROUND,
                }}
              >
                {item.count}
              </span>
            ) : null}
          </Link>
        );
      })}
    </nav>
  );
}

/**
 * The frame of every signed-in screen (SPEC §2): the header with the database title, the full
 * organization name, the organization badge and the user's name with its menu, and the top
 * navigation.
 */
export default function Frame({ user, children }: { user: PublicUser; children: ReactNode }) {
  const { token } = theme.useToken();
  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Header
        style={{
          background: token.colorBgContainer,
          height: 'auto',
          lineHeight: 1.4,
          padding: '12px 24px',
          borderBottom: `1px solid ${token.colorBorderSecondary}`,
        }}
      >
        <Flex align="center" justify="space-between" gap={16} wrap>
          <div>
            <div style={{ fontSize: token.fontSizeHeading4, fontWeight: 600 }}>{DATABASE_TITLE}</div>
            <div style={{ color: token.colorTextSecondary }} data-testid="organization-name">
              {organizationName(user.organization)}
            </div>
          </div>
          <Flex align="center" gap={8}>
            <OrganizationBadge code={user.organization} data-testid="organization-badge" />
            <UserMenu user={user} />
          </Flex>
        </Flex>
      </Layout.Header>
      <Navigation user={user} />
      <Layout.Content style={{ padding: 24 }}>{children}</Layout.Content>
    </Layout>
  );
}
