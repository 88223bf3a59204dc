/**
 * The report calls (SPEC §2 Dashboard "Generate Report", §7 `POST /api/generate-report`): start a
 * report job, read where it is, and the agency's stored reports. Every answer is parsed with the
 * contracts' schemas, so a screen never renders a shape it was not promised.
 */
import {
  type GeneratedReport,
  GeneratedReportSchema,
  type ReportAccepted,
  ReportAcceptedSchema,
  type ReportJob,
  ReportJobSchema,
  type ReportList,
  ReportListSchema,
  ReportSchema,
  type ReportStage,
  routes,
  type Report as StoredReport,
} from '@nrad/contracts';
import { keepPreviousData, type QueryClient, useQuery } from '@tanstack/react-query';
import { callApi } from './api.ts';

/** Every query about reports starts with this key. */
export const REPORTS_KEY = routes.report.list.path;
export const reportListKey = (limit: number, offset: number) => [REPORTS_KEY, 'list', limit, offset] as const;
export const reportKey = (id: string) => [REPORTS_KEY, id] as const;

/** `?async=1`: the call answers 202 with the job at once instead of waiting for the report. */
export const GENERATE_REPORT_URL = '/api/generate-report?async=1';
export const reportJobUrl = (jobId: string) => `${REPORTS_KEY}/jobs/${encodeURIComponent(jobId)}`;
export const reportUrl = (id: string) => `${REPORTS_KEY}/${encodeURIComponent(id)}`;
/** The report as a `text/markdown` attachment (a link target, not a call). */
export const reportMarkdownUrl = (id: string) => `${reportUrl(id)}/markdown`;

/**
 * Asks for a report (`parameters`: optional free text; blank is sent as none). The answer is the
 * job to follow or, should the server have finished at once, the report itself.
 */
export async function startReport(parameters?: string): Promise<ReportAccepted | GeneratedReport> {
  const text = parameters?.trim();
  const answer = await callApi(routes.report.generate, {
    query: { async: '1' },
    body: text ? { parameters: text } : {},
  });
  const accepted = ReportAcceptedSchema.safeParse(answer);
  return accepted.success ? accepted.data : GeneratedReportSchema.parse(answer);
}

/** Where a report job is (`GET /api/reports/jobs/{jobId}`). */
export async function readReportJob(jobId: string): Promise<ReportJob> {
  return ReportJobSchema.parse(await callApi(routes.report.job, { params: { jobId } }));
}

/** A job's stage as a person reads it: "Collecting figures", "Writing". */
export const reportStageLabel = (stage: ReportStage) => stage.charAt(0).toUpperCase() + stage.slice(1);

/** One page of the caller's agency's reports, newest first (`GET /api/reports?limit=&offset=`). */
export function useReports(limit: number, offset: number) {
  return useQuery<ReportList>({
    queryKey: reportListKey(limit, offset),
    queryFn: async () => ReportListSchema.parse(await callApi(routes.report.list, { query: { limit, offset } })),
    staleTime: 0,
    // The page shown stays while the next one loads (no empty table between pages).
    placeholderData: keepPreviousData,
  });
}

/** One stored report with its figures (`GET /api/reports/{id}`); nothing is asked while `id` is null. */
export function useReport(id: string | null) {
  return useQuery<StoredReport>({
    queryKey: reportKey(id ?? ''),
    queryFn: async () => ReportSchema.parse(await callApi(routes.report.get, { params: { id: id ?? '' } })),
    enabled: id !== null,
  });
}

/** After a report is generated: the lists are read again (a stored report never changes). */
export function reportsChanged(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: [REPORTS_KEY, 'list'] });
}
