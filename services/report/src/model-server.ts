import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the model server received, as it arrived (the raw body is what left NRAD). */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: { model?: string; messages?: Array<{ role: string; content: string }> } | undefined;
}

/** How the server answers one request: a status, a JSON body, headers, and a delay before it answers. */
export interface ModelAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A chat completion whose one choice says `content` (what an OpenAI-compatible server answers). */
export function completion(content: string, model = 'test-model'): unknown {
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** An OpenAI-style error body. */
export const apiError = (message: string, code: string) => ({
  error: { message, type: 'invalid_request_error', param: null, code },
});

/**
 * A local OpenAI-compatible HTTP server (tests and the report benchmark; a real server on a real
 * port, spoken to by the real SDK): `POST /v1/chat/completions` records each request and answers
 * with what `answer` says for it (by default at once, a short Markdown report).
 */
export async function startModelServer(
  answer: (req: ReceivedRequest, n: number) => ModelAnswer = () => ({ body: completion('# Report\n\nNothing.') }),
) {
  const received: ReceivedRequest[] = [];
  let respond = answer;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: ReceivedRequest['body'];
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body,
      };
      received.push(request);
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify(apiError('Not found', 'not_found')));
        return;
      }
      const a = respond(request, received.length);
      const send = () => {
        if (res.destroyed) return;
        res
          .writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers })
          .end(JSON.stringify(a.body ?? completion('# Report')));
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The base URL the SDK is given (OPENAI_BASE_URL). */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    /** Answers from now on as `next` says. */
    answer(next: typeof answer) {
      respond = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type ModelServer = Awaited<ReturnType<typeof startModelServer>>;
