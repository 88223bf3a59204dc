/**
 * Which remote draws which signed-in route (SPEC §2). The shell knows the routes when it is
 * built; where each remote lives it learns at run time from the gateway's manifest
 * (/mf/remotes.json), so a remote can move or be redeployed without rebuilding the shell.
 */
export interface RemoteRoute {
  readonly path: string;
  /** The remote's name in the manifest. */
  readonly remote: string;
  /** The module it exposes for this screen (`./<module>`). */
  readonly module: string;
  /** The screen's name, for messages. */
  readonly title: string;
  /**
   * ADMIN only (SPEC §2, §6): anyone else sees "Access denied. Admin privileges required." and
   * the remote is never loaded (neither its files nor its calls leave the browser).
   */
  readonly adminOnly?: boolean;
}

export const REMOTE_ROUTES: readonly RemoteRoute[] = [
  { path: '/', remote: 'dashboard', module: 'Dashboard', title: 'Dashboard' },
  { path: '/dashboard', remote: 'dashboard', module: 'Dashboard', title: 'Dashboard' },
  { path: '/records', remote: 'records', module: 'AddRecord', title: 'Add New Record' },
  { path: '/record/:id', remote: 'records', module: 'RecordDetails', title: 'Record Details' },
  { path: '/record/:id/edit', remote: 'records', module: 'EditRecord', title: 'Edit Record' },
  { path: '/deleted-records', remote: 'records', module: 'DeletedRecords', title: 'Deleted Records' },
  // Possible matches for the investigators to decide (issue 36, ADR 0022).
  { path: '/review', remote: 'records', module: 'Review', title: 'Review' },
  { path: '/search', remote: 'search', module: 'Search', title: 'Search Records' },
  { path: '/batch-upload', remote: 'ingest', module: 'BatchUpload', title: 'Batch Upload' },
  { path: '/admin', remote: 'admin', module: 'Admin', title: 'Admin Panel', adminOnly: true },
  { path: '/admin/operations', remote: 'admin', module: 'Operations', title: 'Operations', adminOnly: true },
  { path: '/settings', remote: 'settings', module: 'Settings', title: 'Settings' },
  // The API's reference, from the OpenAPI document the gateway serves (docs/adr/0019).
  { path: '/api-reference', remote: 'settings', module: 'ApiReference', title: 'API Reference' },
];
