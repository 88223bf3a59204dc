/** The query keys of the admin screens. */
import { RECORDS_KEY } from '@nrad/shared';

export const ADMIN_STATS_KEY = ['/api/admin/stats'] as const;
/** Under RECORDS_KEY, so any record change anywhere (shared `recordsChanged`) refreshes the table. */
export const ADMIN_RECORDS_KEY = [RECORDS_KEY, 'admin'] as const;
export const CONTACT_REQUESTS_KEY = ['/api/admin/contact-requests'] as const;
export const OPERATIONS_KEY = ['/api/admin/operations'] as const;
