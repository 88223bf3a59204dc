/**
 * Renders a screen the way the shell does — font size, antd theme, the one toast queue, the query
 * client — at a path of the gateway the test stack runs, so its calls reach the real services.
 */

import { StyleProvider, type Transformer } from '@ant-design/cssinjs';
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

/**
 * The CSS properties a screen test can observe: whether an element is shown (Testing Library's
 * role queries and jest-dom's toBeVisible read `display`, `visibility` and `opacity`) and whether it
 * can be clicked (user-event reads `pointer-events`). happy-dom computes no layout, so antd's other
 * properties change nothing a test sees.
 */
const OBSERVED = new Set(['display', 'visibility', 'opacity', 'pointerEvents']);

/**
 * Keeps of antd's style rules only those that set an observed property (ADR 0021). happy-dom's
 * getComputedStyle matches every rule of every style sheet against an element and its ancestors
 * each time the document changed, and role queries ask it for every element: it took about half a
 * screen test's CPU. A rule setting an observed property is kept whole (its selector, its place
 * in the cascade), so what is shown, hidden or clickable is computed exactly as before; rules that
 * set nothing observed are dropped by the serializer. Nested objects are selectors and at-rules,
 * visited in turn.
 */
const isNested = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !('_keyframe' in value) && // a property's value: a keyframes rule (animation-name)
  !('value' in value); // a property's value: several, or one not to be checked
const observedOnly: Transformer = {
  visit(style) {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(style)) {
      if (OBSERVED.has(key) || isNested(value)) kept[key] = value;
    }
    return kept as typeof style;
  },
};

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
    <StyleProvider transformers={[observedOnly]}>
      <FontSizeProvider>
        <Themed>
          <QueryClientProvider client={queryClient}>{ui}</QueryClientProvider>
        </Themed>
      </FontSizeProvider>
    </StyleProvider>,
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
