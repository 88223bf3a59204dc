import {
  type GeneratedReport,
  REPORT_MESSAGES,
  REPORT_PARAMETERS_MAX,
  type ReportJob,
  type ReportStage,
  type ReportSummary,
  TEMPLATE_MODEL,
} from '@nrad/contracts';
import {
  Button,
  Flex,
  followJob,
  formatDateTime,
  Input,
  readReportJob,
  reportMarkdownUrl,
  reportStageLabel,
  reportsChanged,
  Spin,
  startReport,
  Tag,
  useMounted,
  useReport,
  useReports,
  useToast,
} from '@nrad/shared';
import { Alert, Card, Table, Typography } from '@nrad/shared/ui';
import { useQueryClient } from '@tanstack/react-query';
import { Component, lazy, type ReactNode, Suspense, useId, useRef, useState } from 'react';

// The Markdown renderer loads with the first report shown, not with the dashboard's figures.
const ReportMarkdown = lazy(() => import('./ReportMarkdown.tsx'));

/** Earlier reports per page of the list. */
export const REPORTS_PAGE_SIZE = 10;

/** SPEC §2 and §8 texts of the card, and what it says of a report's writer. */
export const REPORT_TEXTS = {
  ...REPORT_MESSAGES,
  button: 'Generate Report',
  heading: 'Generated Report',
  errorTitle: 'Error',
  successTitle: 'Success',
  template: 'Written from a template (no AI model is configured)',
  download: 'Download Markdown',
  noReports: 'No reports yet',
  listFailed: 'The reports could not be listed.',
  loadFailed: 'The report could not be loaded.',
} as const;

/** Who wrote a report, as the card says it. */
export const writerText = (model: string) =>
  model === TEMPLATE_MODEL ? REPORT_TEXTS.template : `Written by the AI model ${model}`;

const count = (n: number | undefined) => (n ?? 0).toLocaleString('en-US');

/** What the result area shows: the report just generated, or one picked from the list. */
type Shown = { kind: 'generated'; report: GeneratedReport } | { kind: 'stored'; id: string };

/**
 * SPEC §2 Dashboard, the Generate Report card: optional free-text parameters, Generate Report —
 * a job of the report service (`?async=1`) followed every JOB_POLL_MS (followJob), showing its stage — then the
 * report under Generated Report, rendered from Markdown; below, the agency's earlier reports,
 * newest first, any of which can be opened in the same place.
 */
export default function GenerateReport() {
  const toast = useToast();
  const queryClient = useQueryClient();
  const parametersId = useId();
  const [parameters, setParameters] = useState('');
  const [running, setRunning] = useState(false);
  const [stage, setStage] = useState<ReportStage>('queued');
  const [jobError, setJobError] = useState<string | null>(null);
  const [shown, setShown] = useState<Shown | null>(null);
  const [page, setPage] = useState(1);
  const reports = useReports(REPORTS_PAGE_SIZE, (page - 1) * REPORTS_PAGE_SIZE);
  const stored = useReport(shown?.kind === 'stored' ? shown.id : null);
  const result = useRef<HTMLElement>(null);
  // The card stops reading the job once the dashboard is left (the job itself goes on).
  const live = useMounted();

  /** Reads the job until it ends; undefined when the dashboard was left meanwhile. */
  const follow = (jobId: string): Promise<ReportJob | undefined> =>
    followJob(
      () => readReportJob(jobId),
      live,
      (job) => setStage(job.stage),
    );

  const fail = () => toast.error(REPORT_TEXTS.errorTitle, REPORT_TEXTS.failed);

  const generate = async () => {
    // The box takes no more than this; the check keeps a longer text from ever being sent.
    if (parameters.length > REPORT_PARAMETERS_MAX) return;
    setRunning(true);
    setStage('queued');
    setJobError(null);
    try {
      const started = await startReport(parameters);
      let report: GeneratedReport;
      if ('jobId' in started) {
        const job = await follow(started.jobId);
        if (!job) return;
        if (job.state === 'failed' || !job.result) {
          setJobError(job.error ?? null);
          fail();
          return;
        }
        report = job.result;
      } else {
        report = started; // answered at once
      }
      setShown({ kind: 'generated', report });
      setPage(1);
      void reportsChanged(queryClient);
      toast.success(REPORT_TEXTS.successTitle, REPORT_TEXTS.generated);
    } catch {
      if (live.current) fail();
    } finally {
      if (live.current) setRunning(false);
    }
  };

  const open = (id: string) => {
    setShown({ kind: 'stored', id });
    result.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  };

  const shownId = shown?.kind === 'generated' ? shown.report.id : shown?.id;
  const list = reports.data;

  return (
    <>
      <Card title="Generate Report" data-testid="generate-report">
        <Flex vertical gap={12}>
          <label htmlFor={parametersId} style={{ fontWeight: 600 }}>
            Parameters (optional)
          </label>
          <Input.TextArea
            id={parametersId}
            value={parameters}
            onChange={(e) => setParameters(e.target.value.slice(0, REPORT_PARAMETERS_MAX))}
            maxLength={REPORT_PARAMETERS_MAX}
            showCount={{ formatter: ({ count: n, maxLength }) => `${count(n)} / ${count(maxLength)}` }}
            autoSize={{ minRows: 3, maxRows: 10 }}
            disabled={running}
            placeholder="What the report should look at, e.g. international cases this year, or seized amounts by country"
          />
          <div>
            <Button type="primary" onClick={generate} loading={running} disabled={running}>
              {running ? REPORT_TEXTS.running : REPORT_TEXTS.button}
            </Button>
          </div>
          {running && (
            <Flex gap={8} align="center" wrap role="status" aria-live="polite" data-testid="report-progress">
              <Spin size="small" />
              <Typography.Text>{REPORT_TEXTS.runningDetail}</Typography.Text>
              <Tag data-testid="report-stage">{reportStageLabel(stage)}</Tag>
            </Flex>
          )}
          {jobError && !running && <Alert type="error" showIcon title={jobError} />}
          <section ref={result} aria-label={REPORT_TEXTS.heading} hidden={!shown}>
            {shown?.kind === 'generated' && <ReportView report={shown.report} />}
            {shown?.kind === 'stored' &&
              (stored.data ? (
                <ReportView report={stored.data} summary={stored.data} />
              ) : stored.isError ? (
                <Alert type="error" showIcon title={REPORT_TEXTS.loadFailed} />
              ) : (
                <Spin aria-label="Loading the report" />
              ))}
          </section>
        </Flex>
      </Card>
      <Card title="Earlier Reports" data-testid="earlier-reports">
        <Table<ReportSummary>
          rowKey="id"
          size="small"
          loading={reports.isLoading || reports.isPlaceholderData}
          dataSource={list?.items ?? []}
          locale={{
            emptyText: reports.isLoading ? ' ' : reports.isError ? REPORT_TEXTS.listFailed : REPORT_TEXTS.noReports,
          }}
          pagination={{
            current: page,
            pageSize: REPORTS_PAGE_SIZE,
            total: list?.total ?? 0,
            showSizeChanger: false,
            hideOnSinglePage: true,
            onChange: setPage,
          }}
          scroll={{ x: true }}
          rowClassName={(r) => (r.id === shownId ? 'ant-table-row-selected' : '')}
          onRow={(r) => ({
            onClick: () => open(r.id),
            onKeyDown: (e) => {
              if (e.key === 'Enter') open(r.id);
            },
            tabIndex: 0,
            style: { cursor: 'pointer' },
          })}
          columns={[
            { title: 'Date', dataIndex: 'createdAt', render: (v: string) => formatDateTime(v) },
            { title: 'Requested by', key: 'by', render: (_, r) => r.createdBy.name },
            {
              title: 'Written by',
              dataIndex: 'model',
              render: (v: string) => (v === TEMPLATE_MODEL ? 'Template' : v),
            },
            {
              title: 'Parameters',
              dataIndex: 'parameters',
              ellipsis: true,
              render: (v: string | null) => v ?? '—',
            },
          ]}
        />
      </Card>
    </>
  );
}

/** Shows a report's plain text if its renderer cannot load (the text is still worth reading). */
class MarkdownBoundary extends Component<{ text: string; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? (
      <pre style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{this.props.text}</pre>
    ) : (
      this.props.children
    );
  }
}

/** A report under Generated Report: its writer and date, the Markdown download, the text. */
function ReportView({
  report,
  summary,
}: {
  report: Pick<GeneratedReport, 'id' | 'report' | 'model' | 'createdAt'>;
  summary?: Pick<ReportSummary, 'createdBy' | 'parameters'>;
}) {
  return (
    <Flex vertical gap={8} data-testid="generated-report">
      <Typography.Title level={4} style={{ margin: 0 }}>
        {REPORT_TEXTS.heading}
      </Typography.Title>
      <Typography.Text type="secondary" data-testid="report-meta">
        {[
          writerText(report.model),
          formatDateTime(report.createdAt),
          ...(summary ? [`Requested by ${summary.createdBy.name}`] : []),
        ].join(' · ')}
      </Typography.Text>
      {summary?.parameters && (
        <Typography.Text type="secondary" data-testid="report-parameters">
          Parameters: {summary.parameters}
        </Typography.Text>
      )}
      <div>
        <Button href={reportMarkdownUrl(report.id)} download>
          {REPORT_TEXTS.download}
        </Button>
      </div>
      <Typography data-testid="report-text">
        <MarkdownBoundary text={report.report}>
          <Suspense fallback={<Spin aria-label="Loading the report" />}>
            <ReportMarkdown text={report.report} />
          </Suspense>
        </MarkdownBoundary>
      </Typography>
    </Flex>
  );
}
