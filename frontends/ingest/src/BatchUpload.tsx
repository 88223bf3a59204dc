import {
  BATCH_UPLOAD_MESSAGES,
  BatchUploadAcceptedSchema,
  type BatchUploadResult,
  BatchUploadResultSchema,
  type IngestJob,
  IngestJobSchema,
  routes,
  TEMPLATE_FILE_NAME,
  workbookKindOfName,
} from '@nrad/contracts';
import { Button, callApi, Flex, followJob, messageOf, recordsChanged, useMounted, useToast } from '@nrad/shared';
import { Alert, Card, Progress, Typography } from '@nrad/shared/ui';
import { useQueryClient } from '@tanstack/react-query';
import { type ChangeEvent, useId, useState } from 'react';

export const TEMPLATE_URL = routes.ingest.template.path;
export const UPLOAD_URL = '/api/records/batch-upload?async=1';
export const jobUrl = (jobId: string) => `/api/ingest/jobs/${encodeURIComponent(jobId)}`;

/** "Title: text" → [title, text] of a toast. */
const toastOf = (message: string) => {
  const at = message.indexOf(': ');
  return [message.slice(0, at), message.slice(at + 2)] as const;
};

/** SPEC §5 and §8 texts: [title, description] of each toast. */
export const TEXTS = {
  noFile: toastOf(BATCH_UPLOAD_MESSAGES.noFile),
  invalidType: toastOf(BATCH_UPLOAD_MESSAGES.invalidType),
  failedRows: ['Upload Failed', 'Please check the errors below and fix your Excel file.'],
  failed: ['Upload Failed', 'Upload failed'],
  processing: 'Processing your file...',
} as const;

/** SPEC §9: .xlsx and .xls (by name, letter case aside; the server checks the content). */
export const isExcelName = (name: string) => workbookKindOfName(name) !== undefined;

/** "12.34 KB": the chosen file's size as SPEC §2 shows it. */
export const sizeInKb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

export const successText = (r: Pick<BatchUploadResult, 'successfulRecords' | 'totalRecords'>) =>
  `Successfully uploaded ${r.successfulRecords} of ${r.totalRecords} records.`;

/**
 * SPEC §2 Batch Upload (/batch-upload): the Excel template, a file picker (.xlsx/.xls) showing the
 * chosen file's name and size, Upload Records, then — the upload being a job of the ingest service
 * (`?async=1`, ADR 0011) — "Processing your file..." with a bar of the rows processed, read every
 * JOB_POLL_MS (followJob), and the results card: the counts, each row's problems ("Row {row}, {field}: {message}",
 * scrolling at 15rem) and a note on what was added.
 */
export default function BatchUpload() {
  const toast = useToast();
  const queryClient = useQueryClient();
  const inputId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [processing, setProcessing] = useState(false);
  const [job, setJob] = useState<IngestJob | null>(null);
  const [result, setResult] = useState<BatchUploadResult | null>(null);
  // The screen stops reading the job once it is left (the upload itself goes on).
  const live = useMounted();

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0] ?? null;
    if (chosen && !isExcelName(chosen.name)) {
      toast.error(...TEXTS.invalidType);
      event.target.value = '';
      setFile(null);
      return;
    }
    setFile(chosen);
  };

  /** Reads the job until it ends; undefined when the screen was left meanwhile. */
  const follow = (jobId: string): Promise<IngestJob | undefined> =>
    followJob(async () => IngestJobSchema.parse(await callApi(routes.ingest.job, { params: { jobId } })), live, setJob);

  const upload = async () => {
    if (!file) {
      toast.error(...TEXTS.noFile);
      return;
    }
    if (!isExcelName(file.name)) {
      toast.error(...TEXTS.invalidType);
      return;
    }
    setResult(null);
    setJob(null);
    setProcessing(true);
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      const answer = await callApi(routes.ingest.upload, { query: { async: '1' }, body: form });
      const accepted = BatchUploadAcceptedSchema.safeParse(answer);
      let done: BatchUploadResult | undefined;
      let failed = false;
      if (accepted.success) {
        const ended = await follow(accepted.data.jobId);
        if (!ended) return;
        done = ended.result;
        failed = ended.state === 'failed';
      } else {
        done = BatchUploadResultSchema.parse(answer); // answered at once (without ?async=1)
      }
      if (done) setResult(done);
      if (done && done.successfulRecords > 0) void recordsChanged(queryClient);
      if (failed || !done) toast.error(TEXTS.failed[0], done?.message ?? TEXTS.failed[1]);
      else if (done.success) toast.success('Upload Complete', successText(done));
      else toast.error(...TEXTS.failedRows);
    } catch (error) {
      if (live.current) toast.error(TEXTS.failed[0], messageOf(error, TEXTS.failed[1]));
    } finally {
      if (live.current) setProcessing(false);
    }
  };

  const processed = job?.processedRows ?? 0;
  const total = job?.totalRows ?? 0;
  const percent = total > 0 ? Math.floor((processed / total) * 100) : 0;

  return (
    <Flex vertical gap={16}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Batch Upload
      </Typography.Title>
      <Card title="Upload Records from Excel">
        <Flex vertical gap={16} align="start">
          <Typography.Paragraph style={{ margin: 0 }}>
            Download the template, fill in one record per row (its Allowed Values sheet lists what each column takes)
            and upload it. Each valid row becomes a record of your agency; each row with a problem is listed by its row
            number.
          </Typography.Paragraph>
          <Button href={TEMPLATE_URL} download={TEMPLATE_FILE_NAME}>
            Download Template
          </Button>
          <Flex vertical gap={4}>
            <label htmlFor={inputId} style={{ fontWeight: 600 }}>
              Excel File
            </label>
            <input
              id={inputId}
              type="file"
              accept=".xlsx,.xls"
              onChange={choose}
              disabled={processing}
              aria-describedby={file ? `${inputId}-chosen` : undefined}
            />
            {file && (
              <Typography.Text id={`${inputId}-chosen`} data-testid="chosen-file">
                Selected: {file.name} ({sizeInKb(file.size)})
              </Typography.Text>
            )}
          </Flex>
          <Button type="primary" onClick={upload} loading={processing} disabled={processing}>
            Upload Records
          </Button>
          {processing && (
            <Flex vertical gap={4} style={{ width: '100%' }} role="status" aria-live="polite">
              <Typography.Text>{TEXTS.processing}</Typography.Text>
              <Progress
                percent={percent}
                status="active"
                aria-label="Rows processed"
                aria-valuetext={total > 0 ? `${processed} of ${total} rows` : 'Starting'}
                format={() => (total > 0 ? `${processed} of ${total} rows` : '')}
              />
            </Flex>
          )}
        </Flex>
      </Card>
      {result && <Results result={result} />}
    </Flex>
  );
}

const countStyle = { fontSize: '1.75em', fontWeight: 600, margin: 0 } as const;

/** The results card: the counts, each problem by its row, and what was added (or why nothing was). */
function Results({ result }: { result: BatchUploadResult }) {
  // Rows not created (a row with two problems is one row, listed twice below).
  const failedRows = result.totalRecords - result.successfulRecords;
  const counts: Array<[string, number, string]> = [
    ['Total Records', result.totalRecords, 'inherit'],
    ['Successful', result.successfulRecords, '#389e0d'],
    ['Errors', failedRows, failedRows > 0 ? '#cf1322' : 'inherit'],
  ];
  return (
    <Card title="Upload Results" data-testid="upload-results">
      <Flex vertical gap={16}>
        <dl style={{ display: 'flex', gap: '3rem', margin: 0 }}>
          {counts.map(([label, n, color]) => (
            <div key={label} data-testid={`count-${label}`}>
              <dt>{label}</dt>
              <dd style={{ ...countStyle, color }}>{n}</dd>
            </div>
          ))}
        </dl>
        {result.errors.length > 0 && (
          <section aria-label="Errors by row">
            <Typography.Text strong>Errors:</Typography.Text>
            <ul
              data-testid="row-errors"
              style={{ maxHeight: '15rem', overflow: 'auto', margin: '4px 0 0', paddingLeft: '1.25rem' }}
            >
              {result.errors.map((e, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a row may list one field twice; the list never reorders
                <li key={i}>{`Row ${e.row}, ${e.field}: ${e.message}`}</li>
              ))}
            </ul>
          </section>
        )}
        {result.success ? (
          <Alert
            type="success"
            showIcon
            title={successText(result)}
            description={
              failedRows > 0
                ? 'The rows listed above were not added: correct them and upload those rows again on their own.'
                : undefined
            }
          />
        ) : null}
        {result.message && <Alert type={result.success ? 'warning' : 'error'} showIcon title={result.message} />}
      </Flex>
    </Card>
  );
}
