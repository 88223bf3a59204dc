/**
 * Renders a screen the way the shell does — font size, antd theme, the one toast queue, the query
 * client — at a path of the gateway the test stack runs, so its calls reach the real services.
 */

import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import type userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import {
  ConfigProvider,
  createQueryClient,
  FontSizeProvider,
  ToastProvider,
  themeTokens,
  useFontSize,
} from '../src/index.ts';

function Themed({ children }: { children: ReactNode }) {
  const { px } = useFontSize();
  return (
    <ConfigProvider theme={{ token: { ...themeTokens(px), motion: false } }}>
      <ToastProvider>{children}</ToastProvider>
    </ConfigProvider>
  );
}

/** Points the page at `url` (the gateway), so relative API calls go there with its cookies. */
export function openAt(url: string) {
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(url);
}

export function renderScreen(ui: ReactNode) {
  const queryClient = createQueryClient();
  const result = render(
    <FontSizeProvider>
      <Themed>
        <QueryClientProvider client={queryClient}>{ui}</QueryClientProvider>
      </Themed>
    </FontSizeProvider>,
  );
  return { ...result, queryClient };
}

/** The toast with this text, once it shows. */
export function toastText(text: string) {
  return [...document.querySelectorAll('.ant-notification-notice')].find((n) => n.textContent?.includes(text));
}

/** Registers a user straight through the gateway and signs in (the page keeps the cookie). */
export async function signedInAs(organization = 'FIA') {
  const person = {
    name: 'Screen Tester',
    email: `screen.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 6)}@agency.bm`,
    password: 'a long enough password',
    role: 'Analyst',
    organization,
  };
  const json = { 'Content-Type': 'application/json' };
  const registered = await fetch('/api/auth/register', { method: 'POST', headers: json, body: JSON.stringify(person) });
  if (!registered.ok) throw new Error(`register: ${registered.status}`);
  const login = await fetch('/api/auth/login', {
    method: 'POST',
    headers: json,
    credentials: 'include',
    body: JSON.stringify({ email: person.email, password: person.password }),
  });
  if (!login.ok) throw new Error(`login: ${login.status}`);
  return person;
}

/**
 * Chooses `option` in the antd Select labelled `label`: opens it, narrows a searchable one to the
 * option (its list is virtual), and clicks the option.
 */
export async function pick(user: ReturnType<typeof userEvent.setup>, label: string, option: string) {
  const box = screen.getByLabelText(label);
  await user.click(box);
  if (!(box as HTMLInputElement).readOnly) await user.type(box, option);
  const item = await waitFor(() => {
    const found = [...document.querySelectorAll('.ant-select-dropdown .ant-select-item-option')].find(
      (o) => o.getAttribute('title') === option,
    );
    if (!found) throw new Error(`no option ${option} in ${label}`);
    return found;
  });
  await user.click(item);
  await waitFor(() => {
    const select = box.closest('.ant-select');
    if (select?.querySelector('.ant-select-content')?.textContent?.trim() !== option)
      throw new Error(`${option} was not chosen in ${label}`);
  });
}
