import { REQUEST_ID_HEADER } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { applyRecordEvents, linkAuditId } from '../src/use-cases/linking.ts';
import { startLinking, userOf } from './harness.ts';

const bps = userOf('BPS', 'Betty Police');
const fia = userOf('FIA', 'Frank Intelligence');
const cus = userOf('CUS', 'Cora Customs');
const admin = userOf('ADMIN', 'Ada Admin');

/** What an audit event says, without its id and time. */
const said = (e: { action: string; userId: string | null; organization: string | null; recordIds: string[] }) =>
  `${e.action} ${e.organization} ${e.userId} [${e.recordIds.join(',')}]`;

describe('audit events of the linking service (issue 21)', () => {
  it('records NAMLC checks, manual links and reads of links with the actor, request id and client address', async () => {
    const h = await startLinking({ autoLink: false });
    const police = await h.create(bps, {
      suspectName: 'Ahmed Karimi',
      suspectDob: '1983-04-04',
      incidentDate: '2024-02-02',
      caseAmount: '5000',
    });
    const fiu = await h.create(fia, {
      suspectName: 'Ahmad Karimi',
      suspectDob: '1983-04-04',
      incidentDate: '2024-02-02',
      caseAmount: '5000',
    });

    // A NAMLC check: what was asked, and which records the answer disclosed.
    const fiaApi = await h.as(fia);
    const check = await fiaApi
      .post('/api/records/check-namlc-matches')
      .set(REQUEST_ID_HEADER, 'req-check-1')
      .set('x-forwarded-for', '10.9.8.7')
      .send({
        namlcOrganization: 'Bermuda Police Service',
        suspectName: 'Ahmed Karimi',
        suspectDob: '1983-04-04',
        incidentDate: '2024-02-02',
        caseAmount: '5000',
      })
      .expect(200);
    const matched = (check.body.matches as Array<{ id: string }>).map((m) => m.id);
    expect(matched).toContain(police.id);
    // Refused input asked nothing: no check, no event.
    await fiaApi.post('/api/records/check-namlc-matches').send({ suspectName: 'x' }).expect(400);

    // A manual link of FIA's record with BPS's.
    const link = (
      await fiaApi
        .post('/api/records/link')
        .set(REQUEST_ID_HEADER, 'req-link-1')
        .set('x-forwarded-for', '10.9.8.8')
        .send({ sourceRecordId: fiu.id, linkedRecordId: police.id })
        .expect(201)
    ).body as { id: string };
    // The audit event is stored in the link's document, beside its links.created.
    const stored = await h.db.collection('links').findOne({ _id: new Types.ObjectId(link.id) });
    expect(stored?.audit).toMatchObject({ id: linkAuditId(link.id), subject: `${h.t.subject('audit')}.link.create` });

    // Reads of a record's links name the record and each linked record they disclose.
    const bpsApi = await h.as(bps);
    await bpsApi
      .get(`/api/records/${police.id}/links`)
      .set(REQUEST_ID_HEADER, 'req-links-1')
      .set('x-forwarded-for', '10.9.8.9')
      .expect(200);
    await fiaApi.get(`/api/records/${fiu.id}/linked`).set(REQUEST_ID_HEADER, 'req-linked-1').expect(200);
    // ADMIN sees every agency's records: a read, not a refusal.
    await (await h.as(admin)).get(`/api/records/${fiu.id}/links`).expect(200);
    // The summary discloses counts only: not recorded.
    await bpsApi.get('/api/links/summary').expect(200);

    const events = await h.settledAudit();
    const mine = (action: string) => events.filter((e) => e.action === action);
    expect(events.map((e) => e.action).sort()).toEqual([
      'link.create',
      'namlc.check',
      'record.read',
      'record.read',
      'record.read',
    ]);

    const [checked] = mine('namlc.check');
    expect(checked).toMatchObject({
      userId: fia.userId,
      organization: 'FIA',
      requestId: 'req-check-1',
      clientAddress: '10.9.8.7',
      service: 'linking',
      recordIds: matched,
      detail: {
        namlcOrganization: 'Bermuda Police Service',
        suspectName: 'Ahmed Karimi',
        suspectDob: '1983-04-04',
        incidentDate: '2024-02-02',
        caseAmount: '5000.00',
      },
    });
    expect(checked?.subject).toBe(`${h.t.subject('audit')}.namlc.check`);
    expect(checked?.msgId).toBe(checked?.id);

    const [created] = mine('link.create');
    expect(created).toMatchObject({
      id: linkAuditId(link.id),
      userId: fia.userId,
      organization: 'FIA',
      requestId: 'req-link-1',
      clientAddress: '10.9.8.8',
      service: 'linking',
      recordIds: [fiu.id, police.id],
    });
    expect(created?.detail).toBeUndefined();
    expect(created?.subject).toBe(`${h.t.subject('audit')}.link.create`);
    expect(created?.msgId).toBe(created?.id);

    const reads = mine('record.read');
    expect(reads.map(said)).toEqual([
      `record.read BPS ${bps.userId} [${police.id},${fiu.id}]`,
      `record.read FIA ${fia.userId} [${fiu.id},${police.id}]`,
      `record.read ADMIN ${admin.userId} [${fiu.id},${police.id}]`,
    ]);
    expect(reads[0]).toMatchObject({ requestId: 'req-links-1', clientAddress: '10.9.8.9', detail: { via: 'links' } });
    expect(reads[1]).toMatchObject({ requestId: 'req-linked-1', clientAddress: null, detail: { via: 'links' } });
    // Every event once.
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it("records another agency's attempts on a record as refusals, and answers them as a missing record", async () => {
    const h = await startLinking({ autoLink: false });
    const police = await h.create(bps, { suspectName: 'Refused Person' });
    const customs = await h.create(cus, { suspectName: 'Refused Person' });
    const own = await h.create(fia, { suspectName: 'Refused Person' });
    const fiaApi = await h.as(fia);
    const notFound = { message: 'Record not found' };
    const refusing = (path: string) =>
      fiaApi.get(path).set(REQUEST_ID_HEADER, 'req-refused').set('x-forwarded-for', '10.0.0.5');
    expect((await refusing(`/api/records/${police.id}/links`).expect(404)).body).toMatchObject(notFound);
    expect((await refusing(`/api/records/${police.id}/linked`).expect(404)).body).toMatchObject(notFound);
    // Linking another agency's record as if it were one's own (the source).
    expect(
      (
        await fiaApi
          .post('/api/records/link')
          .send({ sourceRecordId: police.id, linkedRecordId: customs.id })
          .expect(404)
      ).body,
    ).toMatchObject(notFound);
    // An id nobody holds is refused and recorded alike (issue 34: the trail and the time of the
    // answer must not tell another agency's id from a missing one).
    expect((await fiaApi.get('/api/records/0123456789abcdef01234567/links').expect(404)).body).toMatchObject(notFound);
    // Linking one's own record with another agency's is what links are for: no refusal.
    await fiaApi.post('/api/records/link').send({ sourceRecordId: own.id, linkedRecordId: police.id }).expect(201);

    const events = await h.settledAudit();
    const refused = events.filter((e) => e.action === 'access.refused');
    expect(refused).toHaveLength(4);
    expect(refused.filter((e) => e.recordIds[0] === '0123456789abcdef01234567')).toHaveLength(1);
    for (const e of refused.filter((r) => r.recordIds[0] !== '0123456789abcdef01234567')) {
      expect(e).toMatchObject({
        userId: fia.userId,
        organization: 'FIA',
        recordIds: [police.id],
        detail: { status: 404 },
      });
    }
    expect(refused[0]).toMatchObject({ requestId: 'req-refused', clientAddress: '10.0.0.5' });
    expect(events.filter((e) => e.action === 'link.create').map(said)).toEqual([
      `link.create FIA ${fia.userId} [${own.id},${police.id}]`,
    ]);
    // A refused request disclosed nothing.
    expect(events.filter((e) => e.action === 'record.read')).toEqual([]);
  });

  it("records an automatic link once as its record event's actor, even when the event is delivered twice", async () => {
    const h = await startLinking();
    const police = await h.create(bps, { suspectName: 'Ingrid Bergqvist', suspectDob: '1988-12-01' });
    const customs = await h.create(cus, { suspectName: 'Ingrid Bergkvist', suspectDob: '1988-12-01' });
    await waitUntil('auto-link', async () => h.built.deps.links.forRecord(customs.id).length === 1, 10_000);
    const [link] = h.built.deps.links.forRecord(customs.id);

    // The same created event again: redelivered by JetStream (a re-publish with a new message id)
    // and handled once more in process.
    const event = {
      id: crypto.randomUUID(),
      type: 'created' as const,
      time: new Date().toISOString(),
      actor: { userId: cus.userId, name: cus.name, organization: 'CUS' as const },
      record: customs,
    };
    await h.bus.js.publish(`${h.t.subject('records')}.created`, JSON.stringify(event), { msgID: event.id });
    await applyRecordEvents(h.built.deps, [event]);
    await h.caughtUp();

    const creates = (await h.settledAudit()).filter((e) => e.action === 'link.create');
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({
      id: linkAuditId(link?.id ?? ''),
      userId: cus.userId,
      organization: 'CUS',
      requestId: null,
      clientAddress: null,
      service: 'linking',
      recordIds: [customs.id, police.id],
      detail: { auto: true },
    });
    expect(creates[0]?.msgId).toBe(creates[0]?.id);
  });

  it("publishes a link's audit event left unpublished by a crash after a restart, once, even when published twice", async () => {
    const h = await startLinking({ autoLink: false });
    const police = await h.create(bps, { suspectName: 'Crash Person', suspectDob: '1975-06-06' });
    const fiu = await h.create(fia, { suspectName: 'Crash Persson', suspectDob: '1975-06-06' });
    await h.built.deps.relay.stop(); // the process "dies" between storing the link and publishing its events
    const link = (
      await (
        await h.as(fia)
      )
        .post('/api/records/link')
        .set(REQUEST_ID_HEADER, 'req-crash-1')
        .send({ sourceRecordId: fiu.id, linkedRecordId: police.id })
        .expect(201)
    ).body as { id: string };

    await h.restart();
    const creates = async () => (await h.settledAudit()).filter((e) => e.action === 'link.create');
    expect((await creates()).map((e) => e.id)).toEqual([linkAuditId(link.id)]);
    await waitUntil(
      'marked published',
      async () => (await h.db.collection('links').findOne({ _id: new Types.ObjectId(link.id) }))?.published === true,
      10_000,
    );
    // Published, but the mark was lost (a crash before it): the next start publishes both again,
    // and the streams keep each once (the same message ids).
    await h.db.collection('links').updateOne({ _id: new Types.ObjectId(link.id) }, { $set: { published: false } });
    await h.restart();
    const again = await creates();
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ userId: fia.userId, organization: 'FIA', requestId: 'req-crash-1' });
    expect((await h.linkEvents()).filter((e) => e.link.id === link.id)).toHaveLength(1);
  });
});
