import { DEFAULT_COUNTRY, ERROR_CODES, routes } from '@nrad/contracts';
import {
  ApiError,
  Button,
  callApi,
  Flex,
  Form,
  pageStyle,
  recordKey,
  recordsChanged,
  useOptions,
  useRecord,
  useToast,
} from '@nrad/shared';
import { Alert, Card, Typography } from '@nrad/shared/ui';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation, useParams } from 'wouter';
import { showServerProblems } from './api-errors.ts';
import { isNotFound, LoadFailed, Loading } from './common.tsx';
import { checkedBody, fromRecord, RecordFields, type RecordFormValues } from './record-form.tsx';

/** SPEC §2 Edit Record (/record/{id}/edit): pre-filled; a concurrent change is never overwritten. */
export default function EditRecord() {
  const { id = '' } = useParams<{ id: string }>();
  const [, navigate] = useLocation();
  const [form] = Form.useForm<RecordFormValues>();
  const toast = useToast();
  const queryClient = useQueryClient();
  const record = useRecord(id, 'edit');
  const { data: sourceOptions } = useOptions('source');
  const { data: countryOptions } = useOptions('country');
  const [saving, setSaving] = useState(false);
  const [stale, setStale] = useState<string | null>(null);
  const [version, setVersion] = useState<number>();

  useEffect(() => {
    if (record.data) {
      form.setFieldsValue(fromRecord(record.data));
      setVersion(record.data.version);
    }
  }, [record.data, form]);

  if (record.isLoading) return <Loading />;
  if (isNotFound(record.error)) {
    return (
      <Typography.Title level={3} style={{ textAlign: 'center', padding: 48 }}>
        Record not found
      </Typography.Title>
    );
  }
  if (!record.data) return <LoadFailed what="The record" onRetry={() => void record.refetch()} />;

  const update = async () => {
    const body = await checkedBody(form);
    if (!body) return;
    setSaving(true);
    try {
      await callApi(routes.records.update, { params: { id }, body: { ...body, version } });
      toast.success('Success', 'Record updated successfully');
      await recordsChanged(queryClient);
      navigate(`/record/${id}`);
    } catch (error) {
      if (error instanceof ApiError && error.code === ERROR_CODES.staleVersion) {
        setStale('Someone changed this record after you opened it, so your changes were not saved.');
      } else {
        showServerProblems(form, error);
      }
      toast.error('Error', 'Failed to update record');
    } finally {
      setSaving(false);
    }
  };

  const reload = async () => {
    setStale(null);
    await queryClient.invalidateQueries({ queryKey: recordKey(id) });
  };

  // The server's option lists (SPEC §2: the edit form's countries come from the server), plus the
  // record's own values, which an ADMIN may have removed from the lists since.
  const sources = [...new Set([...(sourceOptions ?? []).map((o) => o.value), record.data.sourceOfRecord])];
  const countries = [...new Set([DEFAULT_COUNTRY, ...(countryOptions ?? []).map((o) => o.value), record.data.country])];
  return (
    <Flex vertical gap={16} style={pageStyle}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Edit Record
      </Typography.Title>
      {stale && (
        <Alert
          type="warning"
          showIcon
          message="This record was changed by someone else"
          description={stale}
          action={
            <Button size="small" onClick={reload}>
              Reload the record
            </Button>
          }
        />
      )}
      <Card>
        <Form<RecordFormValues> form={form} layout="vertical" onFinish={update} noValidate requiredMark>
          <RecordFields
            form={form}
            sources={sources}
            countries={countries}
            additionalInfoLabel="Additional Information"
          />
          <Flex gap={8} justify="end">
            <Button onClick={() => navigate(`/record/${id}`)}>Cancel</Button>
            <Button type="primary" htmlType="submit" loading={saving}>
              Update Record
            </Button>
          </Flex>
        </Form>
      </Card>
    </Flex>
  );
}
