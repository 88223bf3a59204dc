/**
 * @nrad/matching, the record-matching engine (ADR 0018): the scorer (scorePair / scorePrepared,
 * Fellegi–Sunter with explanations), the comparisons and normalization it reads, blocking keys and
 * candidate pairs, weights estimated by EM, the prior, the plausibility of estimated weights, pair
 * scoring with partners, and clustering. Pure functions, no database or I/O; used by the linking
 * service and the research tools (tools/linkage: link-csv, the FEBRL evaluation, held-out sets,
 * tuning). This file is the package's one entry: nothing else is imported from outside.
 */
export {
  adoptableDobLevels,
  adoptableWeights,
  DATA_DOB_LEVELS,
  type DataDobLevel,
  implausibility,
  keyWeights,
  MAX_WEIGHT_SHIFT,
  MIN_LEVEL_MATCHES,
  MIN_SESSION_MATCHES,
  priorBitsForRate,
  TYPO_OVER_EXACT_SLACK,
  TYPO_UNDER_EXACT,
  UNDER_SLIP,
  withDobLevels,
} from './adoption.ts';
export {
  blockingKeys,
  type CandidateOptions,
  type CandidateResult,
  candidatePairs,
  isNameKey,
  MAX_BLOCK_SIZE,
  MAX_KEYS,
  MAX_NAME_BLOCK_SIZE,
} from './blocking.ts';
export {
  type ClusterOptions,
  clusterRecords,
  confidenceBits,
  DEFAULT_GAP_BITS,
  type ScoredPair as ClusterPair,
} from './cluster.ts';
export {
  compareDobs,
  compareNames,
  type DobSlip,
  dobSlip,
  frequenciesFromCounts,
  jaroWinkler,
  type NameComparison,
  type NameFrequencies,
  nameFrequencies,
  tokenLevel,
} from './compare.ts';
export {
  DOB_LEVELS,
  ESTIMATE_STEP,
  type EstimateOptions,
  estimateWeights,
  finish,
  type LabelledPair,
  MIN_SESSION_PAIRS,
  rng,
  type SessionSummary,
  TOKEN_LEVELS,
  type WeightEstimate,
  weightEstimation,
} from './em.ts';
export {
  type DayMonthOrder,
  detectDayMonthOrder,
  foldName,
  hasName,
  isPlaceholderName,
  makeDate,
  type PreparedDate,
  type PreparedName,
  parseDate,
  prepareAmount,
  prepareName,
} from './normalize.ts';
export { explainedPairs, type PairEvidence } from './partners.ts';
export {
  comparablePairs,
  estimatePairsPrior,
  estimatePrior,
  MIN_ESTIMATED_PRIOR_BITS,
  type PriorEstimate,
} from './prior.ts';
export { type CandidateScores, scoreCandidatePairs } from './score.ts';
export {
  calibrationFor,
  confidenceToWeight,
  contributionTotal,
  DEFAULT_REVIEW_THRESHOLD,
  DEFAULT_THRESHOLD,
  exclusion,
  type FieldExplanation,
  type FieldStatus,
  MATCH_FIELDS,
  type MatchCriteria,
  type MatchField,
  type MatchInput,
  type MatchResult,
  PART_OF_NAME,
  type PreparedRecord,
  type PrepareOptions,
  pairWeight,
  pairWeightParts,
  prepareRecord,
  priorBitsFor,
  REVIEW_CLASS_PRIOR,
  type ReviewCeilings,
  type ScoreOptions,
  scorePair,
  scorePrepared,
  UNCERTAIN_CLASSES,
  type UncertainClass,
  uncertainNote,
  weightToConfidence,
} from './scorer.ts';
export {
  CALIBRATION,
  type Calibration,
  DOB_WEIGHTS,
  type DobLevel,
  EM_CALIBRATION,
  type LevelWeights,
  MIN_FREQUENCY_RECORDS,
  NAME_WEIGHTS,
  type TokenLevel,
} from './weights.ts';
