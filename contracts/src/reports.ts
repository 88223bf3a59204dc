import { z } from 'zod';
import { offsetPageQuery } from './common.ts';
import { LinkSummarySchema } from './links.ts';
import { OrganizationSchema } from './organizations.ts';
import { StatsBreakdownSchema } from './stats.ts';
import { safeText } from './text.ts';

/**
 * Reports (SPEC §2 Dashboard "Generate Report", §7 `POST /api/generate-report`), owned by the
 * report service: a BullMQ job collects the caller's scope's aggregates from the services that own
 * them and has a model (or, with none configured, a template) write the report in Markdown.
 */

/** The longest `parameters` text a report request takes. */
export const REPORT_PARAMETERS_MAX = 2000;

/** SPEC §8's texts of the Generate Report card. */
export const REPORT_MESSAGES = {
  generated: 'Report generated successfully',
  failed: 'Failed to generate report',
  running: 'Generating Report...',
  runningDetail: 'Generating report using AI analysis...',
} as const;

/** What the template path writes in place of a model's name (`model`). */
export const TEMPLATE_MODEL = 'template';

/** `POST /api/generate-report`: optional free text (what the user wants the report to look at). */
export const GenerateReportSchema = z.strictObject({
  parameters: safeText(
    z
      .string({ error: 'Parameters must be text' })
      .max(
        REPORT_PARAMETERS_MAX,
        `Parameters must be at most ${REPORT_PARAMETERS_MAX.toLocaleString('en-US')} characters`,
      ),
    { label: 'Parameters', multiline: true },
  )
    .nullish()
    .transform((s) => (s?.trim() ? s.trim() : null)),
});
export type GenerateReport = z.output<typeof GenerateReportSchema>;

/**
 * The aggregates a report is written from (and all that is sent to a model): the caller's scope
 * (an agency, or ALL for ADMIN), the statistics' breakdown and the links by agency pair.
 */
export const ReportFiguresSchema = z.object({
  scope: z.enum(['BPS', 'FIA', 'CUS', 'ALL']),
  collectedAt: z.string(),
  stats: StatsBreakdownSchema,
  links: LinkSummarySchema,
});
export type ReportFigures = z.infer<typeof ReportFiguresSchema>;

/** SPEC §7's answer (`report`, Markdown text) with the stored report's id, time and writer. */
export const GeneratedReportSchema = z.object({
  report: z.string(),
  id: z.string(),
  createdAt: z.string(),
  /** The model that wrote it, or "template" when no model is configured. */
  model: z.string(),
});
export type GeneratedReport = z.infer<typeof GeneratedReportSchema>;

/** One stored report as listed (`GET /api/reports`). */
export const ReportSummarySchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  model: z.string(),
  parameters: z.string().nullable(),
  organization: OrganizationSchema,
  createdBy: z.object({ id: z.string(), name: z.string() }),
});
export type ReportSummary = z.infer<typeof ReportSummarySchema>;

/** `GET /api/reports/{id}`: the report, who asked for it and the figures it was written from. */
export const ReportSchema = ReportSummarySchema.extend({ report: z.string(), figures: ReportFiguresSchema });
export type Report = z.infer<typeof ReportSchema>;

export const REPORT_PAGE_MAX = 100;
/** `GET /api/reports?limit=&offset=`: newest first. */
export const ReportPageQuerySchema = offsetPageQuery(REPORT_PAGE_MAX);
export const ReportListSchema = z.object({ items: z.array(ReportSummarySchema), total: z.number().int().min(0) });
export type ReportList = z.infer<typeof ReportListSchema>;

export const REPORT_JOB_STATES = ['queued', 'active', 'completed', 'failed'] as const;
/** Where a running job is: waiting, collecting the figures, the model (or template) writing. */
export const REPORT_STAGES = ['queued', 'collecting figures', 'writing', 'done', 'failed'] as const;
export type ReportStage = (typeof REPORT_STAGES)[number];

/** `GET /api/reports/jobs/{jobId}`. `error` is a message fit to show (never a stack or a key). */
export const ReportJobSchema = z.object({
  jobId: z.string(),
  state: z.enum(REPORT_JOB_STATES),
  stage: z.enum(REPORT_STAGES),
  result: GeneratedReportSchema.optional(),
  error: z.string().optional(),
});
export type ReportJob = z.infer<typeof ReportJobSchema>;

/** `POST /api/generate-report` answered before its job ended (always with `?async=1`). */
export const ReportAcceptedSchema = z.object({ jobId: z.string() });
export type ReportAccepted = z.infer<typeof ReportAcceptedSchema>;
