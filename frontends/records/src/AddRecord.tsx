import {
  type CaseRecord,
  CHECK_MATCHES_MISSING_FIELDS,
  type CheckMatches,
  type MatchCandidate,
  type NAMLC_AGENCY,
  NAMLC_REFERRAL_SOURCE,
  ORGANIZATION_NAMES,
} from '@nrad/contracts';
import {
  ApiError,
  apiRequest,
  Button,
  Flex,
  Form,
  formatDate,
  formatUsd,
  messageOf,
  organizationColor,
  recordsChanged,
  Tag,
  useOptions,
  useToast,
} from '@nrad/shared';
import { Alert, Card, Checkbox, Typography } from '@nrad/shared/ui';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { showServerProblems } from './api-errors.ts';
import { MatchExplanation, matchPercent } from './MatchExplanation.tsx';
import {
  checkedBody,
  DOB_REQUIRED,
  EMPTY_RECORD,
  INCIDENT_DATE_REQUIRED,
  RecordFields,
  type RecordFormValues,
} from './record-form.tsx';

export const LINK_FIRST = 'Create record first to enable linking';
export const CREATE_FIRST = 'Please create the record first before linking';

/** The matches of a NAMLC check (SPEC §2 "Found N Potential Match(es)"), to link once saved. */
function MatchPanel({
  matches,
  saved,
  selected,
  onSelect,
  onLink,
  linking,
}: {
  matches: MatchCandidate[];
  saved: CaseRecord | null;
  selected: ReadonlySet<string>;
  onSelect: (id: string, on: boolean) => void;
  onLink: () => void;
  linking: boolean;
}) {
  const [open, setOpen] = useState<string | null>(null);
  const title = matches.length > 0 ? `Found ${matches.length} Potential Match(es)` : 'No Matches Found';
  return (
    <Card title={title} size="small" style={{ marginBottom: 16 }} data-testid="match-panel">
      <Flex vertical gap={12}>
        {matches.map((m) => (
          <Card key={m.id} size="small" type="inner" data-testid="match">
            <Flex justify="space-between" align="start" gap={12} wrap>
              <Checkbox
                checked={selected.has(m.id)}
                onChange={(e) => onSelect(m.id, e.target.checked)}
                aria-label={`Link to ${m.incidentNumber}`}
              />
              <dl
                style={{ margin: 0, flex: 1, display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '2px 12px' }}
              >
                <dt>Incident</dt>
                <dd style={{ margin: 0 }}>{m.incidentNumber}</dd>
                <dt>Suspect</dt>
                <dd style={{ margin: 0 }}>{m.suspectName}</dd>
                <dt>DOB</dt>
                <dd style={{ margin: 0 }}>{formatDate(m.suspectDob)}</dd>
                <dt>Incident Date</dt>
                <dd style={{ margin: 0 }}>{formatDate(m.incidentDate)}</dd>
                <dt>Case Amount</dt>
                <dd style={{ margin: 0 }}>{formatUsd(m.caseAmount)}</dd>
                <dt>Organization</dt>
                <dd style={{ margin: 0 }}>
                  <Tag color={organizationColor(m.organization)}>{m.organization}</Tag>
                  {ORGANIZATION_NAMES[m.organization]}
                </dd>
              </dl>
              <Flex vertical align="end" gap={4}>
                <Typography.Text strong>{matchPercent(m.confidence)}</Typography.Text>
                <Button type="link" size="small" onClick={() => setOpen(open === m.id ? null : m.id)}>
                  {open === m.id ? 'Hide why' : 'Why?'}
                </Button>
              </Flex>
            </Flex>
            {open === m.id && <MatchExplanation explanation={m.explanation} confidence={m.confidence} />}
          </Card>
        ))}
        {matches.length > 0 &&
          (saved ? (
            <Button type="primary" onClick={onLink} loading={linking} disabled={selected.size === 0}>
              Link Records
            </Button>
          ) : (
            <Typography.Text type="secondary">{LINK_FIRST}</Typography.Text>
          ))}
      </Flex>
    </Card>
  );
}

/** SPEC §2 Add New Record (/records), with the NAMLC match check and linking. */
export default function AddRecord() {
  const [form] = Form.useForm<RecordFormValues>();
  const toast = useToast();
  const queryClient = useQueryClient();
  const { data: sourceOptions } = useOptions('source');
  const [matches, setMatches] = useState<MatchCandidate[] | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [checking, setChecking] = useState(false);
  const [saving, setSaving] = useState(false);
  const [linking, setLinking] = useState(false);
  const [saved, setSaved] = useState<CaseRecord | null>(null);

  const clear = () => {
    form.resetFields();
    setMatches(null);
    setSaved(null);
    setSelected(new Set());
  };

  const check = async () => {
    const v = form.getFieldsValue(true) as RecordFormValues;
    const query = {
      namlcOrganization: v.namlcOrganization,
      suspectName: v.suspectName?.trim(),
      suspectDob: v.suspectDob,
      incidentDate: v.incidentDate,
      caseAmount: v.caseAmount === null || v.caseAmount === undefined ? '' : String(v.caseAmount),
    };
    if (Object.values(query).some((x) => !x)) {
      toast.error('Error', CHECK_MATCHES_MISSING_FIELDS);
      return;
    }
    setChecking(true);
    try {
      const answer = await apiRequest<{ matches: MatchCandidate[] }>(
        'POST',
        '/api/records/check-namlc-matches',
        query as CheckMatches,
      );
      setMatches(answer.matches);
      setSelected(new Set(answer.matches.map((m) => m.id)));
      const organization = query.namlcOrganization as keyof typeof NAMLC_AGENCY;
      if (answer.matches.length > 0) {
        toast.success('Success', `Found ${answer.matches.length} potential matching record(s) in ${organization}`);
      } else {
        toast.success('Success', 'No matching records found in the selected NAMLC organization.');
      }
    } catch {
      toast.error('Error', 'Failed to check for matches');
    } finally {
      setChecking(false);
    }
  };

  const save = async () => {
    const body = await checkedBody(form);
    if (!body) return;
    setSaving(true);
    try {
      const record = await apiRequest<CaseRecord>('POST', '/api/records', body);
      toast.success('Success', 'Record created successfully');
      await recordsChanged(queryClient);
      if (matches && matches.length > 0) setSaved(record);
      else clear();
    } catch (error) {
      showServerProblems(form, error);
      toast.error('Error', 'Failed to create record');
    } finally {
      setSaving(false);
    }
  };

  /** SPEC §5: the two dates are also said in a toast when missing (the fields show every problem). */
  const missingDates = () => {
    const v = form.getFieldsValue(true) as RecordFormValues;
    if (!v.suspectDob) toast.error('Error', DOB_REQUIRED);
    else if (!v.incidentDate) toast.error('Error', INCIDENT_DATE_REQUIRED);
  };

  const link = async () => {
    if (!saved) {
      toast.error('Error', CREATE_FIRST);
      return;
    }
    setLinking(true);
    try {
      for (const m of (matches ?? []).filter((x) => selected.has(x.id))) {
        try {
          await apiRequest('POST', '/api/records/link', {
            sourceRecordId: saved.id,
            linkedRecordId: m.id,
            matchCriteria: m.matchCriteria,
          });
        } catch (error) {
          // Linked already (NRAD links a new record to its matches by itself): that is the goal.
          if (!(error instanceof ApiError && error.status === 409)) throw error;
        }
      }
      toast.success('Success', 'Records linked successfully');
      await recordsChanged(queryClient);
    } catch (error) {
      toast.error('Error', messageOf(error, 'Failed to link records'));
    } finally {
      setLinking(false);
    }
  };

  const sources = (sourceOptions ?? []).map((o) => o.value);
  return (
    <Flex vertical gap={16} style={{ maxWidth: 960 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Add New Record
      </Typography.Title>
      {saved && (
        <Alert
          type="success"
          showIcon
          message={`Record ${saved.incidentNumber} was saved.`}
          description="Link it to the matches below, or Clear to start a new record."
        />
      )}
      <Card>
        <Form<RecordFormValues>
          form={form}
          layout="vertical"
          initialValues={EMPTY_RECORD}
          onFinish={save}
          onFinishFailed={missingDates}
          noValidate
          requiredMark
        >
          <RecordFields
            form={form}
            sources={sources.includes(NAMLC_REFERRAL_SOURCE) ? sources : [...sources, NAMLC_REFERRAL_SOURCE]}
            additionalInfoLabel="Case Information"
            onSourceChange={(value) => {
              if (value !== NAMLC_REFERRAL_SOURCE) {
                setMatches(null);
                setSelected(new Set());
              }
            }}
            namlcExtra={
              <Button onClick={check} loading={checking} style={{ marginBottom: 24 }}>
                Check for Potential Matches
              </Button>
            }
          />
          {matches && (
            <MatchPanel
              matches={matches}
              saved={saved}
              selected={selected}
              onSelect={(id, on) =>
                setSelected((s) => {
                  const next = new Set(s);
                  if (on) next.add(id);
                  else next.delete(id);
                  return next;
                })
              }
              onLink={link}
              linking={linking}
            />
          )}
          <Flex gap={8} justify="end">
            <Button onClick={clear}>Clear</Button>
            <Button type="primary" htmlType="submit" loading={saving} disabled={saved !== null}>
              Save Record
            </Button>
          </Flex>
        </Form>
      </Card>
    </Flex>
  );
}
