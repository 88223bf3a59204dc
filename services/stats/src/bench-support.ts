// What `npm run bench:stats` needs to seed the read model before the service starts, as the
// service itself would store it.

export { StatsStore } from './data/store.ts';
export { stateOf } from './domain/figures.ts';
