// What `npm run bench:linking` needs to seed the match index exactly as the service stores it.
export { indexDoc, LinkingStore } from './data/store.ts';
export { entryFor, type IndexEntry } from './domain/match-index.ts';
