export {
  ApiError,
  apiPage,
  apiRequest,
  type CallOptions,
  callApi,
  callApiWithHeaders,
  callPage,
  messageOf,
  type Page,
  routeUrl,
  throwIfNotOk,
} from './api.ts';
export { USER_QUERY_KEY, useCurrentUser } from './auth.ts';
export { type Chunk, type ChunkState, chunk, useChunk } from './chunk.ts';
export {
  DEFAULT_FONT_SIZE,
  FONT_SIZE_KEY,
  FONT_SIZES,
  type FontSize,
  FontSizeProvider,
  fontSizePx,
  storedFontSize,
  themeTokens,
  useFontSize,
  usePrefersReducedMotion,
} from './font-size.tsx';
export { formatDate, formatDateTime, formatMoment, formatUsd, sumAmounts } from './format.ts';
export { followJob, JOB_POLL_MS, JOB_POLL_RETRIES } from './jobs.ts';
export { PAGE_MAX_WIDTH, pageStyle } from './layout.ts';
export { useMounted } from './mounted.ts';
export { OrganizationBadge } from './organization-badge.tsx';
export {
  ORGANIZATION_BADGE_COLORS,
  ORGANIZATION_COLORS,
  organizationBadgeStyle,
  organizationColor,
  organizationName,
} from './organizations.ts';
export { createQueryClient, defaultQueryFn } from './query.ts';
export * from './record-ui.tsx';
export * from './records.ts';
export * from './reports.ts';
export { TOAST_SECONDS, type Toast, ToastProvider, useToast } from './toast.tsx';
export * from './ui-core.ts';
