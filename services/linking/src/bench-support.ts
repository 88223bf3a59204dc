// What `npm run bench:linking` needs to seed the match index exactly as the service stores it.
export { indexDoc, LinkingStore } from './data/store.ts';
// What `npm run bench:weights` times: the service's own estimate of r and the weights on its index.
export { entryFor, type IndexEntry, MatchIndex } from './domain/match-index.ts';
export { estimateMatchRate, MATCH_RATE_QUIET_MS } from './domain/match-rate.ts';
