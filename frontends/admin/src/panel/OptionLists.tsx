import { type DropdownOption, type DropdownType, routes } from '@nrad/contracts';
import { ApiError, Button, callApi, Form, Input, optionsKey, useToast } from '@nrad/shared';
import { Card } from '@nrad/shared/ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useIsAdmin } from '../access.tsx';

/** The two lists of SPEC §2, in the order they are sent, with SPEC §8's toasts. */
export const OPTION_LISTS = [
  {
    type: 'source',
    label: 'Source of Record Options',
    updated: 'Source options updated successfully',
    failed: 'Failed to update source options',
  },
  {
    type: 'country',
    label: 'Country Options',
    updated: 'Country options updated successfully',
    failed: 'Failed to update country options',
  },
] as const satisfies ReadonlyArray<{ type: DropdownType; label: string; updated: string; failed: string }>;

/** A text area's lines as a list to send: one option per line, blank lines dropped (SPEC §5). */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

type Outcome = { ok: true; count: number } | { ok: false; message: string };

/** The server's reason for refusing a list, without the field name it is about. */
function reasonOf(error: unknown): string {
  const message = error instanceof ApiError ? error.serverMessage : undefined;
  return message ? message.replace(/^values: /, '') : 'The list could not be saved. Try again.';
}

/**
 * SPEC §2 Admin Panel: the Source of Record and Country option lists, one option per line, and
 * one Update Options button that sends each list in turn. Each list gets SPEC §8's toast; as only
 * one toast shows at a time, failures are toasted last (a success never hides a failure) and each
 * list also says under its text area how it went, with the server's reason when it refused.
 */
export function OptionLists() {
  const isAdmin = useIsAdmin();
  const toast = useToast();
  const queryClient = useQueryClient();
  const source = useQuery<DropdownOption[]>({ queryKey: optionsKey('source'), staleTime: 0, enabled: isAdmin });
  const country = useQuery<DropdownOption[]>({ queryKey: optionsKey('country'), staleTime: 0, enabled: isAdmin });
  const loaded = { source: source.data, country: country.data };
  const failed = { source: source.isError, country: country.isError };
  // What the admin typed; undefined: not edited, the list as the server has it.
  const [drafts, setDrafts] = useState<Partial<Record<DropdownType, string>>>({});
  const [outcomes, setOutcomes] = useState<Partial<Record<DropdownType, Outcome>>>({});
  const [saving, setSaving] = useState(false);
  const textOf = (type: DropdownType) => drafts[type] ?? (loaded[type] ?? []).map((o) => o.value).join('\n');

  const update = async () => {
    setSaving(true);
    const done: Partial<Record<DropdownType, Outcome>> = {};
    try {
      for (const list of OPTION_LISTS) {
        try {
          const saved = await callApi(routes.records.replaceOptions, {
            params: { type: list.type },
            body: { values: linesOf(textOf(list.type)) },
          });
          // Every screen's option list (the record forms' selects) is the new one.
          queryClient.setQueryData(optionsKey(list.type), saved);
          setDrafts((d) => ({ ...d, [list.type]: undefined }));
          done[list.type] = { ok: true, count: saved.length };
        } catch (error) {
          done[list.type] = { ok: false, message: reasonOf(error) };
        }
      }
    } finally {
      setOutcomes(done);
      setSaving(false);
    }
    for (const list of OPTION_LISTS) if (done[list.type]?.ok) toast.success('Success', list.updated);
    for (const list of OPTION_LISTS) if (done[list.type]?.ok === false) toast.error('Error', list.failed);
  };

  return (
    <Card title="Dropdown Options" style={{ height: '100%' }}>
      <Form layout="vertical" onFinish={update}>
        {OPTION_LISTS.map((list) => {
          const outcome = outcomes[list.type];
          const id = `options-${list.type}`;
          return (
            <Form.Item
              key={list.type}
              label={list.label}
              htmlFor={id}
              extra="One option per line; blank lines are dropped."
              validateStatus={
                failed[list.type] ? 'error' : outcome === undefined ? undefined : outcome.ok ? 'success' : 'error'
              }
              help={
                failed[list.type]
                  ? 'The list could not be loaded. Reload the page to try again.'
                  : outcome === undefined
                    ? undefined
                    : outcome.ok
                      ? `Saved: ${outcome.count} option${outcome.count === 1 ? '' : 's'}.`
                      : outcome.message
              }
            >
              <Input.TextArea
                id={id}
                value={textOf(list.type)}
                onChange={(e) => {
                  const text = e.target.value;
                  setDrafts((d) => ({ ...d, [list.type]: text }));
                  setOutcomes((o) => ({ ...o, [list.type]: undefined }));
                }}
                autoSize={{ minRows: 6, maxRows: 14 }}
                disabled={!loaded[list.type]}
                spellCheck={false}
              />
            </Form.Item>
          );
        })}
        <Button type="primary" htmlType="submit" loading={saving} disabled={!source.data || !country.data}>
          Update Options
        </Button>
      </Form>
    </Card>
  );
}
