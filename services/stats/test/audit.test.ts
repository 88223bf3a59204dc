import { REQUEST_ID_HEADER } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { startStats, userOf } from './harness.ts';

const h = await startStats();
const bps = userOf('BPS', 'Betty Police');
const admin = userOf('ADMIN', 'Ada Admin');

describe('audit events of the stats service (issue 21)', () => {
  it("records ADMIN's read of every agency's counts and an agency's refusal; an agency's own figures are not recorded", async () => {
    await h.create(bps);
    const agency = await h.as(bps);
    for (const path of ['/api/stats', '/api/stats/countries', '/api/stats/breakdown'])
      await agency.get(path).expect(200);
    await agency
      .get('/api/admin/stats')
      .set(REQUEST_ID_HEADER, 'req-refused-1')
      .set('x-forwarded-for', '10.4.4.1')
      .expect(403);
    await (await h.as(admin))
      .get('/api/admin/stats')
      .set(REQUEST_ID_HEADER, 'req-admin-stats-1')
      .set('x-forwarded-for', '10.4.4.2')
      .expect(200);

    const events = await h.auditEvents();
    expect(events.map((e) => e.action).sort()).toEqual(['access.refused', 'admin']);
    expect(events.find((e) => e.action === 'admin')).toMatchObject({
      userId: admin.userId,
      organization: 'ADMIN',
      requestId: 'req-admin-stats-1',
      clientAddress: '10.4.4.2',
      recordIds: [],
      service: 'stats',
      detail: { what: 'admin-stats' },
      subject: `${h.t.subject('audit')}.admin`,
    });
    const refused = events.find((e) => e.action === 'access.refused');
    expect(refused).toMatchObject({
      userId: bps.userId,
      organization: 'BPS',
      requestId: 'req-refused-1',
      clientAddress: '10.4.4.1',
      recordIds: [],
      detail: { status: 403, method: 'GET', path: '/api/admin/stats' },
    });
    for (const e of events) expect(e.msgId).toBe(e.id);
  });
});
