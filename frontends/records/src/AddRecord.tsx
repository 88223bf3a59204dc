import {
  type CaseRecord,
  CHECK_MATCHES_MISSING_FIELDS,
  type CheckMatches,
  ERROR_CODES,
  type MatchCandidate,
  type NAMLC_AGENCY,
  NAMLC_REFERRAL_SOURCE,
  ORGANIZATION_NAMES,
  type RecordLinkView,
  routes,
} from '@nrad/contracts';
import {
  ApiError,
  Button,
  callApi,
  Flex,
  Form,
  formatDate,
  formatUsd,
  messageOf,
  OrganizationBadge,
  pageStyle,
  recordLinksKey,
  recordsChanged,
  Tag,
  useOptions,
  useToast,
} from '@nrad/shared';
import { Alert, Card, Checkbox, Typography } from '@nrad/shared/ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { showServerProblems } from './api-errors.ts';
import { RejectLinkDialog, type RejectTarget } from './link-actions.tsx';
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
export const ALREADY_LINKED_TITLE = 'Already linked';
export const REJECTED_TAG = 'Rejected';

/**
 * How long after a save the panel keeps reading the new record's links: the linking service links
 * a new record to its matches by itself, moments after the save, and the cards should say so.
 */
const AUTO_LINK_WAIT_MS = 15_000;
const AUTO_LINK_POLL_MS = 1_000;

/** How a match came to be linked: by this screen's click (`new`), or before it (`existing`). */
type LinkedHow = 'new' | 'existing';

/** What the panel says when every selected match was linked already, not by the user's click. */
export function alreadyLinkedText(count: number, incidentNumber: string, only?: string): string {
  const which = count === 1 && only ? only : count === 1 ? 'The selected match' : `All ${count} selected matches`;
  return `${which} ${count === 1 ? 'was' : 'were'} already linked to ${incidentNumber}: NRAD links matching records of other agencies by itself. No new link was needed.`;
}

/** The matches of a NAMLC check (SPEC §2 "Found N Potential Match(es)"), to link once saved. */
function MatchPanel({
  matches,
  saved,
  selected,
  onSelect,
  onLink,
  linking,
  linked,
  rejected,
  onReject,
}: {
  matches: MatchCandidate[];
  saved: CaseRecord | null;
  selected: ReadonlySet<string>;
  /** The matches linked to the saved record, and how. */
  linked: ReadonlyMap<string, LinkedHow>;
  /** The matches whose link to the saved record was rejected here: never linkable again. */
  rejected: ReadonlySet<string>;
  onSelect: (id: string, on: boolean) => void;
  onLink: () => void;
  onReject: (match: MatchCandidate) => void;
  linking: boolean;
}) {
  const [open, setOpen] = useState<string | null>(null);
  const title = matches.length > 0 ? `Found ${matches.length} Potential Match(es)` : 'No Matches Found';
  const pending = matches.filter((m) => selected.has(m.id) && !linked.has(m.id) && !rejected.has(m.id));
  const linkedMatches = matches.filter((m) => linked.has(m.id));
  // Every selected match is linked, none by this screen: say so, rather than leave a dead button.
  const alreadyLinked =
    saved !== null &&
    pending.length === 0 &&
    linkedMatches.length > 0 &&
    linkedMatches.every((m) => linked.get(m.id) === 'existing');
  return (
    <Card title={title} size="small" style={{ marginBottom: 16 }} data-testid="match-panel">
      <Flex vertical gap={12}>
        {matches.map((m) => (
          <Card key={m.id} size="small" type="inner" data-testid="match">
            <Flex justify="space-between" align="start" gap={12} wrap>
              <Checkbox
                checked={!rejected.has(m.id) && (selected.has(m.id) || linked.has(m.id))}
                disabled={linked.has(m.id) || rejected.has(m.id)}
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
                  <OrganizationBadge code={m.organization} />
                  {ORGANIZATION_NAMES[m.organization]}
                </dd>
              </dl>
              <Flex vertical align="end" gap={4}>
                {linked.has(m.id) && (
                  <Tag color="success" style={{ marginInlineEnd: 0 }}>
                    Linked
                  </Tag>
                )}
                {rejected.has(m.id) && <Tag style={{ marginInlineEnd: 0 }}>{REJECTED_TAG}</Tag>}
                <Typography.Text strong>{matchPercent(m.confidence)}</Typography.Text>
                <Button type="link" size="small" onClick={() => setOpen(open === m.id ? null : m.id)}>
                  {open === m.id ? 'Hide why' : 'Why?'}
                </Button>
                {saved !== null && linked.has(m.id) && (
                  <Button
                    danger
                    size="small"
                    aria-label={`Reject the link to ${m.incidentNumber}`}
                    onClick={() => onReject(m)}
                  >
                    Reject
                  </Button>
                )}
              </Flex>
            </Flex>
            {open === m.id && <MatchExplanation explanation={m.explanation} confidence={m.confidence} />}
          </Card>
        ))}
        {alreadyLinked && (
          <Alert
            type="info"
            showIcon
            title={ALREADY_LINKED_TITLE}
            description={alreadyLinkedText(
              linkedMatches.length,
              saved.incidentNumber,
              linkedMatches[0]?.incidentNumber,
            )}
          />
        )}
        {matches.length > 0 &&
          (saved ? (
            <Button type="primary" onClick={onLink} loading={linking} disabled={pending.length === 0}>
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
  const [savedAt, setSavedAt] = useState(0);
  const [linkedByClick, setLinkedByClick] = useState<ReadonlyMap<string, LinkedHow>>(new Map());
  const [rejected, setRejected] = useState<ReadonlySet<string>>(new Set());
  const [rejecting, setRejecting] = useState<RejectTarget | null>(null);

  // The saved record's links: those NRAD made by itself show as Linked before anyone clicks.
  const links = useQuery<RecordLinkView[]>({
    queryKey: recordLinksKey(saved?.id ?? ''),
    enabled: saved !== null && (matches?.length ?? 0) > 0,
    staleTime: 0,
    refetchInterval: (query) => {
      const known = new Set((query.state.data ?? []).map((l) => l.linkedRecordId));
      const waiting = (matches ?? []).some((m) => !known.has(m.id) && !linkedByClick.has(m.id) && !rejected.has(m.id));
      return waiting && Date.now() - savedAt < AUTO_LINK_WAIT_MS ? AUTO_LINK_POLL_MS : false;
    },
  });
  const linked = new Map<string, LinkedHow>();
  // A rejected link is no link (an agency's read leaves it out; ADMIN's marks it).
  for (const l of saved ? (links.data ?? []) : []) if (!l.rejection) linked.set(l.linkedRecordId, 'existing');
  // A link this screen made stays `new` when the server lists it afterwards.
  for (const [id, how] of linkedByClick) linked.set(id, how);
  // One rejected here stays rejected, whatever a read made before the rejection still says.
  for (const id of rejected) linked.delete(id);

  const clear = () => {
    form.resetFields();
    setMatches(null);
    setSaved(null);
    setSelected(new Set());
    setLinkedByClick(new Map());
    setRejected(new Set());
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
    // A case amount the server would refuse (negative): its field says why; nothing is asked.
    try {
      await form.validateFields(['caseAmount']);
    } catch {
      return;
    }
    setChecking(true);
    try {
      const answer = await callApi(routes.linking.checkMatches, { body: query as CheckMatches });
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
      const record = await callApi(routes.records.create, { body });
      toast.success('Success', 'Record created successfully');
      await recordsChanged(queryClient);
      if (matches && matches.length > 0) {
        setSavedAt(Date.now());
        setSaved(record);
      } else clear();
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

  /**
   * Links the selected matches not linked yet. A 409 ALREADY_LINKED (the pair is linked already,
   * usually by NRAD itself) marks the match as linked, and is no success: the success toast only
   * when this click made a new link.
   */
  const link = async () => {
    if (!saved) {
      toast.error('Error', CREATE_FIRST);
      return;
    }
    setLinking(true);
    const outcome = new Map<string, LinkedHow>();
    let failure: unknown = null;
    for (const m of (matches ?? []).filter((x) => selected.has(x.id) && !linked.has(x.id) && !rejected.has(x.id))) {
      try {
        await callApi(routes.linking.link, {
          body: { sourceRecordId: saved.id, linkedRecordId: m.id, matchCriteria: m.matchCriteria },
        });
        outcome.set(m.id, 'new');
      } catch (error) {
        if (error instanceof ApiError && error.status === 409 && error.code === ERROR_CODES.alreadyLinked) {
          outcome.set(m.id, 'existing');
        } else failure ??= error;
      }
    }
    setLinkedByClick((before) => new Map([...before, ...outcome]));
    setLinking(false);
    if (failure) toast.error('Error', messageOf(failure, 'Failed to link records'));
    else if ([...outcome.values()].includes('new')) toast.success('Success', 'Records linked successfully');
    // Only "already linked" answers: the panel says so in place of a success toast.
    if (outcome.size > 0) await recordsChanged(queryClient);
  };

  const sources = (sourceOptions ?? []).map((o) => o.value);
  return (
    <Flex vertical gap={16} style={pageStyle}>
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
      <RejectLinkDialog
        target={rejecting}
        onClose={() => setRejecting(null)}
        onRejected={({ linked: match }) => {
          setRejected((before) => new Set([...before, match.id]));
          setSelected((before) => new Set([...before].filter((id) => id !== match.id)));
          setLinkedByClick((before) => new Map([...before].filter(([id]) => id !== match.id)));
        }}
      />
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
              linked={linked}
              rejected={rejected}
              onReject={(m) => saved && setRejecting({ recordId: saved.id, linked: m })}
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
