import { AGENCY_CODES, ORGANIZATION_NAMES, type RegisterRequest, RegisterRequestSchema, routes } from '@nrad/contracts';
import { Button, callApi, Form, Input, Radio, useToast } from '@nrad/shared';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { AuthCard } from './AuthCard.tsx';
import { zodRule } from './zod-rule.ts';

export const ALREADY_REGISTERED =
  'This email address is already registered. Please use a different email or try logging in.';
export const REGISTER_FAILED = 'Failed to create account. Please try again.';

const ORGANIZATION_OPTIONS = AGENCY_CODES.map((code) => ({
  value: code,
  label: `${code} - ${ORGANIZATION_NAMES[code]}`,
}));

/**
 * SPEC §2 Register: Full Name, Email Address, Password, Role (free text), Organization (BPS, FIA,
 * CUS), all empty at first; "Creating account..." while busy; success → /login, failure stays.
 */
export function Register() {
  const toast = useToast();
  const [, navigate] = useLocation();
  const [busy, setBusy] = useState(false);
  const shape = RegisterRequestSchema.shape;

  const submit = async (values: RegisterRequest) => {
    setBusy(true);
    try {
      await callApi(routes.auth.register, { body: values });
      toast.success('Success', 'Account created successfully');
      navigate('/login');
    } catch (error) {
      const exists = error instanceof Error && error.message.includes('User already exists');
      toast.error('Error', exists ? ALREADY_REGISTERED : REGISTER_FAILED);
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Create Account" subtitle="Register for system access">
      <Form<RegisterRequest> noValidate layout="vertical" onFinish={submit} requiredMark={false} disabled={busy}>
        <Form.Item label="Full Name" name="name" validateTrigger="onSubmit" rules={[zodRule(shape.name)]}>
          <Input autoComplete="name" />
        </Form.Item>
        <Form.Item label="Email Address" name="email" validateTrigger="onSubmit" rules={[zodRule(shape.email)]}>
          <Input type="email" autoComplete="email" />
        </Form.Item>
        <Form.Item label="Password" name="password" validateTrigger="onSubmit" rules={[zodRule(shape.password)]}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item label="Role" name="role" validateTrigger="onSubmit" rules={[zodRule(shape.role)]}>
          <Input />
        </Form.Item>
        <Form.Item
          label="Organization"
          name="organization"
          validateTrigger="onSubmit"
          rules={[zodRule(shape.organization)]}
        >
          <Radio.Group options={ORGANIZATION_OPTIONS} style={{ display: 'flex', flexDirection: 'column', gap: 8 }} />
        </Form.Item>
        <Button type="primary" htmlType="submit" block disabled={busy}>
          {busy ? 'Creating account...' : 'Register Account'}
        </Button>
      </Form>
      <p style={{ textAlign: 'center', marginBottom: 0 }}>
        <Link href="/login">Already have an account? Sign in</Link>
      </p>
    </AuthCard>
  );
}
