import { type CaseRecord, type LinkRejection, REJECT_REASON_MAX, routes } from '@nrad/contracts';
import {
  callApi,
  Form,
  formatMoment,
  Input,
  messageOf,
  organizationName,
  recordsChanged,
  useToast,
} from '@nrad/shared';
import { Modal, Typography } from '@nrad/shared/ui';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

/**
 * Rejecting a link and restoring a rejected one (issue 34), shared by the Record Journey and the
 * Add Record match panel: either agency whose record is in a link, or ADMIN, rejects it; the other
 * agency stops seeing the record through it at once and NRAD never links the pair again; only
 * ADMIN restores it.
 */

export const REJECT_LINK_TITLE = 'Reject this link?';
export const LINK_REJECTED = 'Link rejected';
export const LINK_RESTORED = 'Link restored';
export const REASON_LABEL = 'Reason';

/** What rejecting does, said before it is done: `organization` is the other record's agency. */
export const rejectLinkText = (organization: string) =>
  `${organizationName(organization)} will no longer see this record through the link, and NRAD will not link the two again. Only an administrator can restore it.`;

/** What a rejected link says to ADMIN (the only one who sees it): who, when (local day), why. */
export function rejectionText(rejection: LinkRejection): string {
  const said = `Rejected by ${organizationName(rejection.byOrganization)} on ${formatMoment(rejection.at)}`;
  return rejection.reason ? `${said}: ${rejection.reason}` : `${said}.`;
}

/** The optional reason of a rejection (a link's or a possible match's), at most REJECT_REASON_MAX characters. */
export function ReasonField({ id, value, onChange }: { id: string; value: string; onChange: (value: string) => void }) {
  return (
    <Form layout="vertical" component="div">
      <Form.Item
        label={REASON_LABEL}
        htmlFor={id}
        extra={`Optional, up to ${REJECT_REASON_MAX} characters.`}
        style={{ marginBottom: 0 }}
      >
        <Input.TextArea
          id={id}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          maxLength={REJECT_REASON_MAX}
          showCount
          rows={3}
        />
      </Form.Item>
    </Form>
  );
}

/** A link to reject: the caller's record (`recordId`) and the other agency's record in it. */
export interface RejectTarget {
  recordId: string;
  linked: Pick<CaseRecord, 'id' | 'organization' | 'incidentNumber'>;
}

/**
 * The confirmation of a rejection, open while `target` is set: what rejecting does, an optional
 * reason (at most REJECT_REASON_MAX characters), then the DELETE, a toast, and every record query
 * read again (the journey, the Linked badges). A refusal shows the server's message; the queries
 * are read again then too, since a link another user rejected meanwhile is gone.
 */
export function RejectLinkDialog({
  target,
  onClose,
  onRejected,
}: {
  target: RejectTarget | null;
  onClose: () => void;
  /** After the server rejected the link, before the queries are read again. */
  onRejected?: (target: RejectTarget) => void;
}) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);

  const close = () => {
    setReason('');
    onClose();
  };

  const reject = async () => {
    if (!target) return;
    setBusy(true);
    const said = reason.trim();
    try {
      // The body is optional: sent only with a reason.
      await callApi(routes.linking.reject, {
        params: { id: target.recordId, linkedId: target.linked.id },
        body: said ? { reason: said } : undefined,
      });
      toast.success('Success', LINK_REJECTED);
      onRejected?.(target);
    } catch (error) {
      toast.error('Error', messageOf(error, 'Failed to reject link'));
    } finally {
      setBusy(false);
    }
    close();
    await recordsChanged(queryClient);
  };

  return (
    <Modal
      open={target !== null}
      title={REJECT_LINK_TITLE}
      okText="Reject"
      okButtonProps={{ danger: true }}
      cancelText="Cancel"
      confirmLoading={busy}
      onOk={reject}
      onCancel={close}
    >
      {target && (
        <>
          <Typography.Paragraph>
            {`The link to ${organizationName(target.linked.organization)}'s record ${target.linked.incidentNumber}.`}
          </Typography.Paragraph>
          <Typography.Paragraph>{rejectLinkText(target.linked.organization)}</Typography.Paragraph>
          <ReasonField id="reject-link-reason" value={reason} onChange={setReason} />
        </>
      )}
    </Modal>
  );
}

/**
 * ADMIN's restore of a rejected link: the POST, a toast, every record query read again. Resolves
 * when done; `restoring` names the link being restored (for its button's spinner).
 */
export function useRestoreLink() {
  const toast = useToast();
  const queryClient = useQueryClient();
  const [restoring, setRestoring] = useState<string | null>(null);
  const restore = async (recordId: string, linkedId: string) => {
    setRestoring(linkedId);
    try {
      await callApi(routes.linking.restore, { params: { id: recordId, linkedId } });
      toast.success('Success', LINK_RESTORED);
    } catch (error) {
      toast.error('Error', messageOf(error, 'Failed to restore link'));
    } finally {
      setRestoring(null);
    }
    await recordsChanged(queryClient);
  };
  return { restore, restoring };
}
