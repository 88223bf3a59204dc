import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAt } from '../test/render.tsx';
import { ApiError, apiRequest, messageOf } from './api.ts';
import { createQueryClient } from './query.ts';

// A real HTTP server answering what each test asks, recording what it received.
const received: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    received.push({ method: req.method, url: req.url, headers: req.headers, body });
    const [, status = '200', kind = 'json'] = (req.url ?? '').split('/');
    res.statusCode = Number(status);
    if (kind === 'empty') res.end();
    else if (kind === 'text') res.end('plain words');
    else
      res.setHeader('Content-Type', 'application/json').end(JSON.stringify({ message: 'From the server', code: 'X' }));
  });
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  openAt(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('apiRequest and SPEC §8 errors', () => {
  it('raises "<status>: <body text>" for a non-OK answer, or the status text when the body is empty', async () => {
    await expect(apiRequest('GET', '/409/text')).rejects.toThrow('409: plain words');
    await expect(apiRequest('GET', '/503/empty')).rejects.toThrow('503: Service Unavailable');
    const error = await apiRequest('POST', '/400/json', { a: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('400: {"message":"From the server","code":"X"}');
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).serverMessage).toBe('From the server');
    expect(messageOf(error, 'Failed to update name.')).toBe('From the server');
    expect(messageOf(new ApiError(500, 'not json', 'x'), 'Failed to update name.')).toBe('Failed to update name.');
    expect(messageOf(new TypeError('Failed to fetch'), 'Failed to send message.')).toBe('Failed to send message.');
  });

  it('sends JSON only when there is a body, and parses the answer (empty: undefined)', async () => {
    received.length = 0;
    expect(await apiRequest('POST', '/200/json', { name: 'x' })).toEqual({ message: 'From the server', code: 'X' });
    expect(await apiRequest('POST', '/204/empty')).toBeUndefined();
    expect(received[0]?.headers['content-type']).toBe('application/json');
    expect(received[0]?.body).toBe('{"name":"x"}');
    expect(received[1]?.headers['content-type']).toBeUndefined();
    expect(received[1]?.body).toBe('');
  });

  it('posts a form as multipart/form-data (no JSON), with the same answers and errors', async () => {
    received.length = 0;
    const form = new FormData();
    form.append('file', new File(['cell contents'], 'incidents.xlsx'));
    expect(await apiRequest('POST', '/202/json', form)).toEqual({ message: 'From the server', code: 'X' });
    expect(received[0]?.method).toBe('POST');
    expect(received[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(received[0]?.body).toContain('name="file"; filename="incidents.xlsx"');
    expect(received[0]?.body).toContain('cell contents');
    const error = await apiRequest('POST', '/415/json', form).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(messageOf(error, 'Upload failed')).toBe('From the server');
  });

  it('queries by default with a GET on the key segments joined by "/", without retries', async () => {
    received.length = 0;
    const client = createQueryClient();
    expect(await client.fetchQuery({ queryKey: ['/200', 'json'] })).toEqual({ message: 'From the server', code: 'X' });
    await expect(client.fetchQuery({ queryKey: ['/500', 'text'] })).rejects.toThrow('500: plain words');
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /200/json', 'GET /500/text']);
    const defaults = client.getDefaultOptions().queries;
    expect(defaults).toMatchObject({ retry: false, refetchOnWindowFocus: false, staleTime: Number.POSITIVE_INFINITY });
  });
});
