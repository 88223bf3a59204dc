import {
  type Bus,
  consumeRecordEvents,
  createServiceApp,
  ensureStream,
  type Logger,
  mongoReadiness,
} from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { LinkingConfig } from './config.ts';
import { LinkingStore } from './data/store.ts';
import { LinkRegistry } from './domain/link-registry.ts';
import { MatchIndex } from './domain/match-index.ts';
import { MatchRate } from './domain/match-rate.ts';
import { LinkRelay } from './events/link-relay.ts';
import { apiRoutes } from './http/routes.ts';
import { applyRecordEvents, type LinkingDeps, loadState, matchRateLog } from './use-cases/linking.ts';

export interface LinkingAppDeps {
  config: LinkingConfig;
  db: Connection;
  bus: Bus;
  logger: Logger;
}

/**
 * Builds the linking service: loads the match index and the links from its database into memory,
 * estimates the prior's match rate and the name and date-of-birth weights from the index
 * (domain/match-rate.ts), makes sure both streams exist, starts the link relay and the durable
 * consumer of `records.*` (which keeps the index current, auto-links new records and re-estimates
 * the match rate and the weights when due), and mounts the routes.
 */
export async function createApp({ config, db, bus, logger }: LinkingAppDeps) {
  const store = new LinkingStore(db);
  await store.init();
  const relay = new LinkRelay({ store, bus, logger, retryMs: config.RELAY_RETRY_MS });
  const index = new MatchIndex({ strictNames: config.LINK_STRICT_NAMES });
  const deps: LinkingDeps = {
    store,
    index,
    matchRate: new MatchRate(index),
    links: new LinkRegistry(),
    relay,
    logger,
    autoLink: config.AUTO_LINK,
    threshold: config.LINK_THRESHOLD,
    matchLimit: config.MATCH_LIMIT,
    recordWaitMs: config.RECORD_WAIT_MS,
    linksSubjectPrefix: config.LINKS_SUBJECT_PREFIX,
  };
  const started = Date.now();
  await loadState(deps);
  const ms = Date.now() - started;
  // The prior's match rate and the weights from the records just loaded (r = 1 and the fixed
  // weights while there are too few; the log says which weights score, and why the fixed ones stay).
  const matchRate = matchRateLog(deps.matchRate.estimate());
  const { strictNames } = deps.index;
  logger.info({ records: deps.index.size, links: deps.links.size, ms, matchRate, strictNames }, 'match index loaded');

  await ensureStream(bus.jsm, { name: config.LINKS_STREAM, subjects: [`${config.LINKS_SUBJECT_PREFIX}.>`] });
  relay.start();
  const consumer = await consumeRecordEvents(bus, config, (events) => applyRecordEvents(deps, events), logger);

  const app = createServiceApp({
    name: 'linking',
    logger,
    identitySecret: config.IDENTITY_SECRET,
    readiness: { mongo: mongoReadiness(db) },
  });
  const api = apiRoutes(deps);
  app.use(api.routes()).use(api.allowedMethods());

  return {
    app,
    deps,
    async stop() {
      await consumer.stop();
      await relay.stop();
    },
  };
}
