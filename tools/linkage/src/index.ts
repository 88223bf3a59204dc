/**
 * @nrad/linkage-tools (ADR 0018): what the research tools offer other packages' tests — the FEBRL
 * files and their loader, and the quality measures of a scored set of pairs. The tools themselves
 * run from bin/ (npm run linkage:eval, linkage:heldout; bin/link-csv).
 */
export {
  dedupeFebrl,
  type FebrlRecord,
  linkageDataDir,
  loadFebrl,
  scoreAsService,
  serviceOptions,
} from './eval/febrl.ts';
export { generateHeldout, HELDOUT_KINDS, HELDOUT_NAMES, type HeldoutKind } from './eval/heldout.ts';
export {
  bestF1,
  bestRecallAtPrecision,
  fitCalibration,
  qualityAt,
  reliability,
  type ScoredPair,
} from './eval/metrics.ts';
export { uncertainClassOf } from './eval/zones.ts';
