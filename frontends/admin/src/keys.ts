/** The query keys of the admin screens. */
import { routes } from '@nrad/contracts';
import { RECORDS_KEY } from '@nrad/shared';

export const ADMIN_STATS_KEY = [routes.stats.admin.path] as const;
/** Under RECORDS_KEY, so any record change anywhere (shared `recordsChanged`) refreshes the table. */
export const ADMIN_RECORDS_KEY = [RECORDS_KEY, 'admin'] as const;
export const CONTACT_REQUESTS_KEY = [routes.auth.contactRequests.path] as const;
export const OPERATIONS_KEY = [routes.ops.operations.path] as const;
