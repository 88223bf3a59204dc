import { routes } from '@nrad/contracts';
import {
  Button,
  callApi,
  Flex,
  FONT_SIZES,
  type FontSize,
  Form,
  Input,
  messageOf,
  organizationName,
  pageStyle,
  USER_QUERY_KEY,
  useCurrentUser,
  useFontSize,
  useToast,
} from '@nrad/shared';
import { Card, Col, Row, Select, Space, Typography } from '@nrad/shared/ui';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'wouter';

export const CONTACT_REQUIRED = 'Please fill in both subject and message fields.';

/** Account Settings: the display name (Save only when it is non-empty and changed), organization and role. */
function AccountSettings() {
  const { user } = useCurrentUser();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [name, setName] = useState(user?.name ?? '');
  const [saving, setSaving] = useState(false);
  useEffect(() => setName(user?.name ?? ''), [user?.name]);
  if (!user) return null;
  const changed = name.trim() !== '' && name.trim() !== user.name;

  const save = async () => {
    setSaving(true);
    try {
      const answer = await callApi(routes.auth.updateName, { body: { name: name.trim() } });
      queryClient.setQueryData(USER_QUERY_KEY, answer);
      toast.success('Success', 'Your name has been updated successfully.');
    } catch (error) {
      toast.error('Error', messageOf(error, 'Failed to update name.'));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card title="Account Settings">
      <Form layout="vertical" onFinish={save}>
        <Form.Item label="Display Name" htmlFor="display-name">
          <Space.Compact style={{ width: '100%' }}>
            <Input id="display-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
            <Button type="primary" htmlType="submit" disabled={!changed || saving}>
              Save
            </Button>
          </Space.Compact>
        </Form.Item>
        <Form.Item label="Organization" htmlFor="organization">
          <Input
            id="organization"
            value={`${user.organization} - ${organizationName(user.organization)}`}
            readOnly
            disabled
          />
        </Form.Item>
        <Form.Item label="Role" htmlFor="role" style={{ marginBottom: 0 }}>
          <Input id="role" value={user.role} readOnly disabled />
        </Form.Item>
      </Form>
    </Card>
  );
}

/** Display Settings: the font size, applied at once and remembered in this browser. */
function DisplaySettings() {
  const { fontSize, setFontSize } = useFontSize();
  return (
    <Card title="Display Settings">
      <Form layout="vertical">
        <Form.Item label="Font Size" htmlFor="font-size" style={{ marginBottom: 0 }}>
          <Select<FontSize>
            id="font-size"
            value={fontSize}
            onChange={setFontSize}
            options={FONT_SIZES.map((s) => ({ value: s.value, label: s.label }))}
            style={{ maxWidth: 240 }}
          />
        </Form.Item>
      </Form>
    </Card>
  );
}

/** Contact Administrator: a subject and a message, both needed. */
function ContactAdministrator() {
  const toast = useToast();
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [sending, setSending] = useState(false);

  const send = async () => {
    if (!subject.trim() || !message.trim()) {
      toast.error('Error', CONTACT_REQUIRED);
      return;
    }
    setSending(true);
    try {
      await callApi(routes.auth.contactAdmin, { body: { subject: subject.trim(), message: message.trim() } });
      toast.success('Success', 'Your message has been sent to the administrator.');
      setSubject('');
      setMessage('');
    } catch (error) {
      toast.error('Error', messageOf(error, 'Failed to send message.'));
    } finally {
      setSending(false);
    }
  };

  return (
    <Card title="Contact Administrator">
      <Form layout="vertical" onFinish={send}>
        <Form.Item label="Subject" htmlFor="contact-subject">
          <Input id="contact-subject" value={subject} onChange={(e) => setSubject(e.target.value)} maxLength={200} />
        </Form.Item>
        <Form.Item label="Message" htmlFor="contact-message">
          <Input.TextArea
            id="contact-message"
            value={message}
            onChange={(e) => setMessage(e.target.value)}
            rows={5}
            maxLength={5000}
          />
        </Form.Item>
        <Button type="primary" htmlType="submit" disabled={sending}>
          Send Message
        </Button>
      </Form>
    </Card>
  );
}

/**
 * SPEC §2 Settings: the cards in their order, one column on a phone; on a wide screen two columns
 * (account and display beside record management and contact) in the page's centred width.
 */
export default function Settings() {
  return (
    <Flex vertical gap={24} style={pageStyle}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Settings
      </Typography.Title>
      <Row gutter={[24, 24]}>
        <Col xs={24} lg={12}>
          <Flex vertical gap={24}>
            <AccountSettings />
            <DisplaySettings />
          </Flex>
        </Col>
        <Col xs={24} lg={12}>
          <Flex vertical gap={24}>
            <Card title="Record Management">
              <Link href="/deleted-records">View Deleted Records</Link>
            </Card>
            <Card title="API">
              <Link href="/api-reference">API Reference</Link>
            </Card>
            <ContactAdministrator />
          </Flex>
        </Col>
      </Row>
    </Flex>
  );
}
