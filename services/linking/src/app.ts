import { fillPath, REQUEST_ID_HEADER, routes } from '@nrad/contracts';
import {
  AuditTrail,
  type Bus,
  consumeRecordEvents,
  createServiceApp,
  currentIdentityToken,
  ensureStream,
  fetchAs,
  type IdentitySigner,
  KeyedLock,
  type Logger,
  MongoAuditSpool,
  mongoReadiness,
  parseSigner,
} from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import { type LinkingConfig, reviewThresholdOf } from './config.ts';
import { LinkingStore } from './data/store.ts';
import { Disclosures } from './domain/disclosures.ts';
import { LinkRegistry } from './domain/link-registry.ts';
import { MatchIndex } from './domain/match-index.ts';
import { MATCH_RATE_QUIET_MS, MatchRate, QuietTimer } from './domain/match-rate.ts';
import { decisions, labelledPairs, PossibleMatches } from './domain/possible-matches.ts';
import { Relinking } from './domain/relinking.ts';
import { estimateWeightsInThread } from './domain/weights-thread.ts';
import { LinkRelay } from './events/link-relay.ts';
import { apiRoutes } from './http/routes.ts';
import {
  applyRecordEvents,
  forgetExpiredDisclosures,
  type LinkingDeps,
  linkAgain,
  loadState,
  matchRateLog,
} from './use-cases/linking.ts';

/** How long the records service may take to say whose a record is (ms); then the old way. */
const RECORD_OWNER_TIMEOUT_MS = 3000;

/**
 * Asks the records service, on the user's behalf (signed by this service, carrying the gateway's
 * token of the request being handled: identity.ts), for the record: 200 is theirs and active;
 * anything else is not (the records service applies their scope and refuses another agency's
 * record as one nobody holds). Without the request's token there is nothing to ask with.
 */
function recordOfUser(baseUrl: string, signer: IdentitySigner): NonNullable<LinkingDeps['recordOfUser']> {
  return async (_user, id, requestId) => {
    const proof = currentIdentityToken();
    if (!proof) return false;
    const path = fillPath(routes.records.get.path, { id });
    const res = await fetchAs(
      { kind: 'on-behalf', proof },
      signer,
      new URL(path, baseUrl),
      requestId ? { headers: { [REQUEST_ID_HEADER]: requestId } } : {},
      RECORD_OWNER_TIMEOUT_MS,
    );
    await res.body?.cancel();
    return res.status === 200;
  };
}

/**
 * The heap the service holds once its index is loaded (issue 36: memory per record, reported by
 * bench:linking): after a full collection when the process may ask for one (`--expose-gc`, as
 * `npm start` runs it; the loading's garbage would count otherwise), with the resident size. The
 * service's own heap (its code, the clients) is included: bytes per record overstate at small N.
 */
function memoryAfterLoad(records: number) {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
  return {
    collected: gc !== undefined,
    heapUsedMiB: mib(heapUsed),
    rssMiB: mib(rss),
    heapBytesPerRecord: records > 0 ? Math.round(heapUsed / records) : null,
  };
}

export interface LinkingAppDeps {
  config: LinkingConfig;
  db: Connection;
  bus: Bus;
  logger: Logger;
}

/**
 * Builds the linking service: loads the match index and the links from its database into memory,
 * estimates the prior's match rate and the name and date-of-birth weights from the index
 * (domain/match-rate.ts), makes sure the LINKS and AUDIT streams exist, starts the audit trail
 * (issue 21), the link relay (which publishes each link's `links.created` and `link.create` audit
 * event) and the durable consumer of `records.*` (which keeps the index current, auto-links new
 * records and re-estimates the match rate and the weights when due), and mounts the routes.
 */
export async function createApp({ config, db, bus, logger }: LinkingAppDeps) {
  const store = new LinkingStore(db);
  await store.init();
  const linkLock = new KeyedLock();
  const relay = new LinkRelay({ store, bus, logger, retryMs: config.RELAY_RETRY_MS, lock: linkLock });
  const index = new MatchIndex({ strictNames: config.LINK_STRICT_NAMES });
  const auditStream = { AUDIT_STREAM: config.AUDIT_STREAM, AUDIT_SUBJECT_PREFIX: config.AUDIT_SUBJECT_PREFIX };
  const audit = new AuditTrail({
    bus,
    stream: auditStream,
    service: 'linking',
    logger,
    spool: new MongoAuditSpool(db),
  });
  const links = new LinkRegistry();
  const possibleMatches = new PossibleMatches();
  const deps: LinkingDeps = {
    store,
    index,
    // The estimate learns from what investigators decided (issue 36, ADR 0022).
    // Its background estimates take EM's weights from a thread of their own (weights-thread.ts).
    matchRate: new MatchRate(index, Date.now, () => labelledPairs(index, decisions(links, possibleMatches)), {
      run: estimateWeightsInThread,
      failed: (err) => logger.warn({ err }, 'the weight estimation thread failed; estimating in the event loop'),
    }),
    quietRefresh: new QuietTimer(MATCH_RATE_QUIET_MS),
    relinking: new Relinking(
      index,
      (entry) => linkAgain(deps, entry),
      (tally) => logger.info({ relinked: tally }, 'linked again after the weights changed'),
    ),
    links,
    linkLock,
    relay,
    logger,
    autoLink: config.AUTO_LINK,
    threshold: config.LINK_THRESHOLD,
    reviewThreshold: reviewThresholdOf(config),
    possibleMatches,
    disclosureThreshold: config.DISCLOSURE_THRESHOLD,
    disclosures: new Disclosures(),
    disclosureTtlMs: config.DISCLOSURE_TTL_MINUTES * 60_000,
    matchLimit: config.MATCH_LIMIT,
    recordWaitMs: config.RECORD_WAIT_MS,
    linksSubjectPrefix: config.LINKS_SUBJECT_PREFIX,
    audit,
    auditStream,
    ...(config.RECORDS_URL && config.IDENTITY_PRIVATE_KEY
      ? { recordOfUser: recordOfUser(config.RECORDS_URL, parseSigner('linking', config.IDENTITY_PRIVATE_KEY)) }
      : {}),
  };
  const started = Date.now();
  await loadState(deps);
  const ms = Date.now() - started;
  const memory = memoryAfterLoad(deps.index.size);
  // The prior's match rate and the weights from the records just loaded (r = 1 and the fixed
  // weights while there are too few; the log says which weights score, and why the fixed ones stay).
  const matchRate = matchRateLog(deps.matchRate.estimate());
  const { strictNames } = deps.index;
  logger.info(
    {
      records: deps.index.size,
      links: deps.links.size,
      possibleMatches: deps.possibleMatches.size,
      reviewThreshold: deps.reviewThreshold,
      ms,
      memory,
      matchRate,
      strictNames,
    },
    'match index loaded',
  );

  await ensureStream(bus.jsm, { name: config.LINKS_STREAM, subjects: [`${config.LINKS_SUBJECT_PREFIX}.>`] });
  await audit.start(); // ensures the AUDIT stream: the relay publishes the links' audit events to it too
  relay.start();
  let consumer: Awaited<ReturnType<typeof consumeRecordEvents>>;
  try {
    consumer = await consumeRecordEvents(bus, config, (events) => applyRecordEvents(deps, events), logger);
  } catch (err) {
    await relay.stop();
    await audit.stop();
    throw err;
  }

  // Disclosures past their time leave memory and the store (they answer nothing after it anyway).
  const sweep = setInterval(() => {
    forgetExpiredDisclosures(deps).catch((err: unknown) => logger.warn({ err }, 'expired disclosures not removed yet'));
  }, deps.disclosureTtlMs);
  sweep.unref();

  const app = createServiceApp({
    name: 'linking',
    logger,
    identityKeys: config.IDENTITY_PUBLIC_KEYS,
    readiness: { mongo: mongoReadiness(db) },
    audit: deps.audit,
  });
  const api = apiRoutes(deps);
  app.use(api.routes()).use(api.allowedMethods());

  return {
    app,
    deps,
    async stop() {
      clearInterval(sweep);
      await consumer.stop();
      deps.quietRefresh.cancel();
      await relay.stop();
      await audit.stop();
    },
  };
}
