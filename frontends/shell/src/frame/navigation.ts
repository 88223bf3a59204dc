import type { Organization } from '@nrad/contracts';

/** SPEC §2 top navigation; Admin only for ADMIN. */
export function navigationItems(organization: Organization) {
  const items = [
    { key: '/', label: 'Dashboard' },
    { key: '/records', label: 'Add Record' },
    { key: '/batch-upload', label: 'Batch Upload' },
    { key: '/search', label: 'Search' },
  ];
  if (organization === 'ADMIN') items.push({ key: '/admin', label: 'Admin' });
  return items;
}

/**
 * The item highlighted for a path: the one whose route is the path (/ and /dashboard: Dashboard;
 * the Admin Panel's pages, /admin/...: Admin).
 */
export function activeItem(pathname: string): string | undefined {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/' || path === '/dashboard') return '/';
  if (path.startsWith('/admin/')) return '/admin';
  return ['/records', '/batch-upload', '/search', '/admin'].find((key) => path === key);
}
