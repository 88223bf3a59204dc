import { LoginRequestSchema, routes } from '@nrad/contracts';
import { Button, callApi, Form, Input, USER_QUERY_KEY, useToast } from '@nrad/shared';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { DATABASE_TITLE, LOGIN_REDIRECT_MS } from '../constants.ts';
import { AuthCard } from './AuthCard.tsx';
import { zodRule } from './zod-rule.ts';

interface LoginValues {
  email: string;
  password: string;
}

/**
 * SPEC §2 Login: Email Address and Password; "Signing in..." while busy; on success a toast, about
 * a second's wait, then /; any failure "Invalid credentials".
 */
export function Login() {
  const toast = useToast();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const submit = async (values: LoginValues) => {
    setBusy(true);
    try {
      const answer = await callApi(routes.session.login, { body: { email: values.email, password: values.password } });
      toast.success('Success', 'Successfully logged in');
      timer.current = setTimeout(() => {
        navigate('/');
        queryClient.setQueryData(USER_QUERY_KEY, answer);
      }, LOGIN_REDIRECT_MS);
    } catch {
      toast.error('Error', 'Invalid credentials');
      setBusy(false);
    }
  };

  return (
    <AuthCard title={DATABASE_TITLE}>
      <Form<LoginValues> noValidate layout="vertical" onFinish={submit} requiredMark={false} disabled={busy}>
        <Form.Item
          label="Email Address"
          name="email"
          validateTrigger="onSubmit"
          rules={[zodRule(LoginRequestSchema.shape.email)]}
        >
          <Input type="email" autoComplete="username" />
        </Form.Item>
        <Form.Item
          label="Password"
          name="password"
          validateTrigger="onSubmit"
          rules={[zodRule(LoginRequestSchema.shape.password)]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" block disabled={busy}>
          {busy ? 'Signing in...' : 'Sign In'}
        </Button>
      </Form>
      <p style={{ textAlign: 'center', marginBottom: 0 }}>
        <Link href="/register">Need an account? Register here</Link>
      </p>
    </AuthCard>
  );
}
