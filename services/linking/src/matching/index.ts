/**
 * The record-link matching module: the scorer (scorePair / scorePrepared), blocking keys, and the
 * normalization both use. Pure functions, no database or I/O; used by the linking service, the
 * FEBRL evaluation (bin/linkage-eval.ts) and the link-csv tool.
 */
export {
  blockingKeys,
  type CandidateOptions,
  type CandidateResult,
  candidatePairs,
  MAX_KEYS,
} from './blocking.ts';
export {
  compareNames,
  type DobSlip,
  dobSlip,
  frequenciesFromCounts,
  type NameComparison,
  type NameFrequencies,
  nameFrequencies,
  tokenLevel,
} from './compare.ts';
export {
  type DayMonthOrder,
  foldName,
  isPlaceholderName,
  makeDate,
  type PreparedDate,
  type PreparedName,
  parseDate,
  prepareAmount,
  prepareName,
} from './normalize.ts';
export {
  contributionTotal,
  DEFAULT_THRESHOLD,
  exclusion,
  type FieldExplanation,
  type FieldStatus,
  MATCH_FIELDS,
  type MatchCriteria,
  type MatchField,
  type MatchInput,
  type MatchResult,
  type PreparedRecord,
  type PrepareOptions,
  pairWeight,
  prepareRecord,
  priorBitsFor,
  type ScoreOptions,
  scorePair,
  scorePrepared,
  weightToConfidence,
} from './scorer.ts';
