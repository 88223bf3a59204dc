import type { Organization } from '@nrad/contracts';

export interface NavigationItem {
  key: string;
  label: string;
  /** How many things there await the user (shown beside the label). */
  count?: number;
}

/**
 * SPEC §2 top navigation; Admin only for ADMIN; Review (issue 36) while possible matches await a
 * decision the user may make (`toReview`), with their count, or while the user is on it.
 */
export function navigationItems(organization: Organization, toReview = 0, onReview = false): NavigationItem[] {
  const items: NavigationItem[] = [
    { key: '/', label: 'Dashboard' },
    { key: '/records', label: 'Add Record' },
    { key: '/batch-upload', label: 'Batch Upload' },
    { key: '/search', label: 'Search' },
  ];
  if (toReview > 0 || onReview)
    items.push({ key: '/review', label: 'Review', ...(toReview > 0 ? { count: toReview } : {}) });
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
  return ['/records', '/batch-upload', '/search', '/review', '/admin'].find((key) => path === key);
}
