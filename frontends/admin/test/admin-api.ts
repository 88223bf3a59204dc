/**
 * What the admin screens' tests do straight through the gateway: sign in as the test stack's
 * ADMIN, send a contact request as an agency user, read the figures once they have settled.
 */
import { type AdminStats, AdminStatsSchema } from '@nrad/contracts';

/** The ADMIN account of the test stack (gateway/test/auth-stack.ts). */
export const ADMIN = { email: 'admin@nrad.test', password: 'admin-password-123' };

const json = { 'Content-Type': 'application/json' };

/** Signs the page in as ADMIN (the page keeps the cookie). */
export async function signedInAsAdmin(): Promise<void> {
  const login = await fetch('/api/auth/login', {
    method: 'POST',
    headers: json,
    credentials: 'include',
    body: JSON.stringify(ADMIN),
  });
  if (!login.ok) throw new Error(`admin login: ${login.status} ${await login.text()}`);
}

/** Sends a message to the administrator as the signed-in user; resolves with the request's id. */
export async function contactAdmin(subject: string, message: string): Promise<string> {
  const response = await fetch('/api/contact-admin', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ subject, message }),
  });
  if (!response.ok) throw new Error(`contact-admin: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { request: { id: string } }).request.id;
}

/** The active records of every agency as the records service counts them (X-Total-Count; ADMIN). */
export async function recordsTotal(): Promise<number> {
  const response = await fetch('/api/admin/records?limit=1');
  if (!response.ok) throw new Error(`admin records: ${response.status}`);
  return Number(response.headers.get('x-total-count'));
}

/**
 * GET /api/admin/stats once the stats service has applied every record change (its counts add
 * up to the records service's total) — it learns of them from events, a moment later. As ADMIN.
 */
export async function settledStats(timeoutMs = 20_000): Promise<AdminStats> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch('/api/admin/stats');
    if (!response.ok) throw new Error(`admin stats: ${response.status}`);
    const stats = AdminStatsSchema.parse(await response.json());
    if (stats.bpsRecords + stats.fiaRecords + stats.cusRecords === (await recordsTotal())) return stats;
    if (Date.now() > until) throw new Error(`the admin stats did not settle within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
