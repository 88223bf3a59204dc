import { spawnStack } from '@nrad/gateway/spawn-stack';
import { USER_QUERY_KEY } from '@nrad/shared';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { openAt, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import Settings, { CONTACT_REQUIRED } from './Settings.tsx';

let person: Awaited<ReturnType<typeof signedInAs>>;
beforeAll(async () => {
  const { url } = await spawnStack();
  openAt(`${url}/settings`);
  person = await signedInAs('BPS');
});

describe('Settings', () => {
  it('shows the account with Organization and Role read-only', async () => {
    renderScreen(<Settings />);
    expect(await screen.findByLabelText('Display Name')).toHaveValue(person.name);
    expect(screen.getByLabelText('Organization')).toHaveValue('BPS - Bermuda Police Service');
    expect(screen.getByLabelText('Organization')).toBeDisabled();
    expect(screen.getByLabelText('Role')).toHaveValue('Analyst');
    expect(screen.getByLabelText('Role')).toBeDisabled();
    expect(screen.getByRole('link', { name: 'View Deleted Records' })).toHaveAttribute('href', '/deleted-records');
    for (const title of ['Account Settings', 'Display Settings', 'Record Management', 'Contact Administrator']) {
      expect(screen.getByText(title)).toBeInTheDocument();
    }
  });

  it('saves the display name only when it is changed and not blank', async () => {
    const user = userEvent.setup();
    const { queryClient } = renderScreen(<Settings />);
    const input = await screen.findByLabelText('Display Name');
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await user.clear(input);
    await user.type(input, '   ');
    expect(save).toBeDisabled();
    await user.clear(input);
    await user.type(input, `  ${person.name}  `);
    expect(save).toBeDisabled(); // the same name once trimmed
    await user.clear(input);
    await user.type(input, 'Nora Newname');
    expect(save).toBeEnabled();
    await user.click(save);
    await waitFor(() => expect(toastText('Your name has been updated successfully.')).toBeDefined());
    // The user everyone reads (the header's too) is the new one, and so is the server's.
    expect(queryClient.getQueryData<{ user: { name: string } }>(USER_QUERY_KEY)?.user.name).toBe('Nora Newname');
    const me = await (await fetch('/api/auth/user', { credentials: 'include' })).json();
    expect(me.user.name).toBe('Nora Newname');
    await waitFor(() => expect(save).toBeDisabled());
  });

  it('applies a font size at once and remembers it', async () => {
    const user = userEvent.setup();
    renderScreen(<Settings />);
    await screen.findByLabelText('Display Name');
    expect(document.documentElement.style.fontSize).toBe('16px');
    await user.click(screen.getByLabelText('Font Size'));
    await user.click(await screen.findByTitle('Small (14px)'));
    await waitFor(() => expect(document.documentElement.style.fontSize).toBe('14px'));
    expect(localStorage.getItem('fontSize')).toBe('small');
  });

  it('asks for both subject and message, then sends them', async () => {
    const user = userEvent.setup();
    renderScreen(<Settings />);
    await screen.findByLabelText('Display Name');
    await user.type(screen.getByLabelText('Subject'), '   ');
    await user.click(screen.getByRole('button', { name: 'Send Message' }));
    await waitFor(() => expect(toastText(CONTACT_REQUIRED)).toBeDefined());
    await user.type(screen.getByLabelText('Subject'), 'Need access');
    await user.type(screen.getByLabelText('Message'), 'Please enable the archive for me.');
    await user.click(screen.getByRole('button', { name: 'Send Message' }));
    await waitFor(() => expect(toastText('Your message has been sent to the administrator.')).toBeDefined());
    expect(screen.getByLabelText('Subject')).toHaveValue('');
    expect(screen.getByLabelText('Message')).toHaveValue('');
  });

  it('shows the server’s message when a save fails', async () => {
    const user = userEvent.setup();
    renderScreen(<Settings />);
    const input = await screen.findByLabelText('Display Name');
    await user.clear(input);
    await user.type(input, 'x'.repeat(100)); // the longest name the form takes
    await fetch('/api/auth/logout', { method: 'POST' }); // the session ends meanwhile
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(toastText('Not signed in')).toBeDefined());
  });
});
