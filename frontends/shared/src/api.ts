/**
 * The API client every screen uses: same-origin calls with the session cookie, JSON bodies, and
 * SPEC §8's error rule — any non-OK answer raises an ApiError whose message is
 * `"<status>: <body text>"`, or `"<status>: <status text>"` when the body is empty.
 */
import { NEXT_CURSOR_HEADER, TOTAL_COUNT_HEADER } from '@nrad/contracts';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly body: string,
    statusText: string,
  ) {
    super(`${status}: ${body || statusText}`);
  }

  /** The body parsed as JSON, when it is an object (our errors are `{message, code}`). */
  private get json(): Record<string, unknown> {
    try {
      const parsed: unknown = JSON.parse(this.body);
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  /** The `message` of a JSON error body, if the body is one. */
  get serverMessage(): string | undefined {
    const { message } = this.json;
    return typeof message === 'string' && message ? message : undefined;
  }

  /** The `code` of a JSON error body (ERROR_CODES), if the body is one. */
  get code(): string | undefined {
    const { code } = this.json;
    return typeof code === 'string' ? code : undefined;
  }
}

/** What a failure toast shows: the server's message when it sent one, else `fallback`. */
export function messageOf(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return error.serverMessage ?? fallback;
  return fallback;
}

/** Raises an ApiError for a non-OK response (SPEC §8). */
export async function throwIfNotOk(response: Response): Promise<void> {
  if (!response.ok) throw new ApiError(response.status, await response.text(), response.statusText);
}

/**
 * Sends one call: credentials always, a body as JSON only when given — or, for a form, as
 * multipart/form-data (the browser writes its Content-Type with the boundary); a non-OK answer throws.
 */
async function send(method: string, url: string, body?: unknown): Promise<Response> {
  const form = body instanceof FormData;
  const response = await fetch(url, {
    method,
    credentials: 'include',
    headers: body === undefined || form ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
  });
  await throwIfNotOk(response);
  return response;
}

/** One call (a `FormData` body goes as a multipart form); the parsed JSON answer (undefined when empty). */
export async function apiRequest<T = unknown>(method: string, url: string, body?: unknown): Promise<T> {
  const text = await (await send(method, url, body)).text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** One page of a list answer: the items, the whole list's size and the next page's cursor. */
export interface Page<T> {
  items: T[];
  total: number;
  nextCursor: string | undefined;
}

/** A paged list call (records lists answer an array plus X-Total-Count and X-Next-Cursor). */
export async function apiPage<T>(method: string, url: string, body?: unknown): Promise<Page<T>> {
  const response = await send(method, url, body);
  const items = (await response.json()) as T[];
  const total = Number(response.headers.get(TOTAL_COUNT_HEADER) ?? items.length);
  return {
    items,
    total: Number.isFinite(total) ? total : items.length,
    nextCursor: response.headers.get(NEXT_CURSOR_HEADER) ?? undefined,
  };
}
