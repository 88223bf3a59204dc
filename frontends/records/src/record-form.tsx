/**
 * The fields of a record (SPEC §2 Add New Record / Edit Record, §3, §5) and the conversions
 * between the form and the API: one form for creating and editing.
 */
import {
  type CaseRecord,
  COUNTRIES,
  CRIME_SUBTYPES,
  CRIME_TYPES,
  type CrimeType,
  DEFAULT_COUNTRY,
  NAMLC_ORGANIZATIONS,
  NAMLC_REFERRAL_SOURCE,
  type NamlcOrganization,
  RecordInputSchema,
} from '@nrad/contracts';
import { Form, type FormInstance, Input, Radio } from '@nrad/shared';
import { AMOUNT_RULES, AmountInput, Checkbox, Col, Row, Select } from '@nrad/shared/ui';
import type { ReactNode } from 'react';

export interface RecordFormValues {
  incidentNumber?: string;
  suspectName?: string;
  suspectDob?: string;
  incidentDate?: string;
  caseAmount?: string | null;
  seizedAmount?: string | null;
  confiscatedAmount?: string | null;
  sourceOfRecord?: string;
  namlcOrganization?: NamlcOrganization;
  internationalNexus: boolean;
  country?: string;
  cyberAssisted: boolean;
  crimeType?: CrimeType;
  crimeSubtype?: string;
  additionalInfo?: string;
}

/** SPEC §5 and §9: an empty form (amounts 0, no nexus, Bermuda). */
export const EMPTY_RECORD: RecordFormValues = {
  caseAmount: '0',
  seizedAmount: '0',
  confiscatedAmount: '0',
  internationalNexus: false,
  country: DEFAULT_COUNTRY,
  cyberAssisted: false,
};

export const DOB_REQUIRED = 'Suspect date of birth is required';
export const INCIDENT_DATE_REQUIRED = 'Incident date is required';

/** An amount field's value as the API takes it: a decimal string, 0 when empty (SPEC §5). */
function amount(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value).trim();
  return text === '' ? '0' : text;
}

/** The request body of POST /api/records or PUT /api/records/{id} from the form. */
export function toBody(values: RecordFormValues) {
  const referral = values.sourceOfRecord === NAMLC_REFERRAL_SOURCE;
  return {
    incidentNumber: values.incidentNumber?.trim() ?? '',
    suspectName: values.suspectName?.trim() ?? '',
    suspectDob: values.suspectDob ?? '',
    incidentDate: values.incidentDate ?? '',
    caseAmount: amount(values.caseAmount),
    seizedAmount: amount(values.seizedAmount),
    confiscatedAmount: amount(values.confiscatedAmount),
    sourceOfRecord: values.sourceOfRecord ?? '',
    namlcOrganization: referral ? (values.namlcOrganization ?? null) : null,
    internationalNexus: values.internationalNexus,
    cyberAssisted: values.cyberAssisted,
    country: values.internationalNexus ? (values.country ?? '') : DEFAULT_COUNTRY,
    crimeType: values.crimeType ?? null,
    crimeSubtype: values.crimeType ? (values.crimeSubtype ?? null) : null,
    additionalInfo: values.additionalInfo?.trim() ? values.additionalInfo : null,
  };
}

/** The form's values for a stored record (Edit Record). */
export function fromRecord(record: CaseRecord): RecordFormValues {
  return {
    incidentNumber: record.incidentNumber,
    suspectName: record.suspectName,
    suspectDob: record.suspectDob,
    incidentDate: record.incidentDate,
    caseAmount: record.caseAmount,
    seizedAmount: record.seizedAmount,
    confiscatedAmount: record.confiscatedAmount,
    sourceOfRecord: record.sourceOfRecord,
    ...(record.namlcOrganization ? { namlcOrganization: record.namlcOrganization } : {}),
    internationalNexus: record.internationalNexus,
    country: record.country,
    cyberAssisted: record.cyberAssisted,
    ...(record.crimeType ? { crimeType: record.crimeType } : {}),
    ...(record.crimeSubtype ? { crimeSubtype: record.crimeSubtype } : {}),
    ...(record.additionalInfo ? { additionalInfo: record.additionalInfo } : {}),
  };
}

/** A message as a sentence: its first letter capitalized. */
export const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

/**
 * Checks the whole form with the contracts' record schema (so cross-field rules, such as a date
 * of birth before the incident date, show on their fields). Resolves with the body when valid;
 * otherwise marks the fields and resolves with undefined.
 */
export async function checkedBody(form: FormInstance<RecordFormValues>) {
  try {
    await form.validateFields();
  } catch {
    return undefined;
  }
  const body = toBody(form.getFieldsValue(true) as RecordFormValues);
  const result = RecordInputSchema.safeParse(body);
  if (result.success) return body;
  const byField = new Map<string, string[]>();
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? 'incidentNumber');
    byField.set(field, [...(byField.get(field) ?? []), sentence(issue.message)]);
  }
  form.setFields([...byField].map(([name, errors]) => ({ name: name as keyof RecordFormValues, errors })));
  return undefined;
}

const required = (message: string) => ({ required: true, whitespace: true, message });
const options = (values: readonly string[]) => values.map((v) => ({ value: v, label: v }));

/** The record's fields. `namlcExtra` sits beside the NAMLC Organization (the match check). */
export function RecordFields({
  form,
  sources,
  countries = COUNTRIES,
  namlcExtra,
  onSourceChange,
  additionalInfoLabel,
}: {
  form: FormInstance<RecordFormValues>;
  sources: readonly string[];
  countries?: readonly string[];
  namlcExtra?: ReactNode;
  onSourceChange?: (source: string | undefined) => void;
  additionalInfoLabel: string;
}) {
  const nexus = Form.useWatch('internationalNexus', form);
  const source = Form.useWatch('sourceOfRecord', form);
  const crimeType = Form.useWatch('crimeType', form) as CrimeType | undefined;
  const referral = source === NAMLC_REFERRAL_SOURCE;
  const foreign = countries.filter((c) => c !== DEFAULT_COUNTRY);

  return (
    <>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <Form.Item
            label="Incident Number"
            name="incidentNumber"
            required
            rules={[required('Incident number is required')]}
          >
            <Input maxLength={64} />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item label="Suspect Name" name="suspectName" required rules={[required('Suspect name is required')]}>
            <Input maxLength={200} />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item label="Suspect Date of Birth" name="suspectDob" required rules={[required(DOB_REQUIRED)]}>
            <Input type="date" max="9999-12-31" />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item label="Incident Date" name="incidentDate" required rules={[required(INCIDENT_DATE_REQUIRED)]}>
            <Input type="date" max="9999-12-31" />
          </Form.Item>
        </Col>
        {(['caseAmount', 'seizedAmount', 'confiscatedAmount'] as const).map((name) => (
          <Col xs={24} md={8} key={name}>
            <Form.Item
              label={
                { caseAmount: 'Case Amount', seizedAmount: 'Seized Amount', confiscatedAmount: 'Confiscated Amount' }[
                  name
                ]
              }
              name={name}
              rules={AMOUNT_RULES}
            >
              <AmountInput />
            </Form.Item>
          </Col>
        ))}
      </Row>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <Form.Item
            label="Source of Record"
            name="sourceOfRecord"
            required
            rules={[required('Source of record is required')]}
          >
            <Select
              showSearch
              placeholder="Select a source"
              options={options(sources)}
              onChange={(value: string) => {
                if (value !== NAMLC_REFERRAL_SOURCE) form.setFieldValue('namlcOrganization', undefined);
                onSourceChange?.(value);
              }}
            />
          </Form.Item>
        </Col>
        {referral && (
          <Col xs={24} md={12}>
            <Form.Item label="NAMLC Organization" name="namlcOrganization">
              <Select showSearch placeholder="Select an organization" options={options(NAMLC_ORGANIZATIONS)} />
            </Form.Item>
            {namlcExtra}
          </Col>
        )}
      </Row>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <Form.Item label="International Nexus" name="internationalNexus" required>
            <Radio.Group
              options={[
                { value: true, label: 'Yes' },
                { value: false, label: 'No' },
              ]}
              onChange={(e) => form.setFieldValue('country', e.target.value ? undefined : DEFAULT_COUNTRY)}
            />
          </Form.Item>
        </Col>
        {nexus && (
          <Col xs={24} md={12}>
            <Form.Item label="Country" name="country" required rules={[required('Country is required')]}>
              <Select showSearch placeholder="Select a country" options={options(foreign)} />
            </Form.Item>
          </Col>
        )}
      </Row>
      <Form.Item name="cyberAssisted" valuePropName="checked">
        <Checkbox>Cyber-Assisted</Checkbox>
      </Form.Item>
      <Form.Item label="Crime Type (optional)" name="crimeType">
        <Radio.Group
          style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(260px, 1fr))', gap: 6 }}
          options={options(CRIME_TYPES)}
          onChange={() => form.setFieldValue('crimeSubtype', undefined)}
        />
      </Form.Item>
      {crimeType && (
        <Row gutter={16}>
          <Col xs={24} md={12}>
            <Form.Item label="Crime Subtype" name="crimeSubtype">
              <Select allowClear placeholder="Select a subtype" options={options(CRIME_SUBTYPES[crimeType] ?? [])} />
            </Form.Item>
          </Col>
        </Row>
      )}
      <Form.Item label={additionalInfoLabel} name="additionalInfo">
        <Input.TextArea rows={4} maxLength={10_000} />
      </Form.Item>
    </>
  );
}
