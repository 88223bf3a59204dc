/**
 * The API client every screen uses: same-origin calls with the session cookie, JSON bodies, and
 * SPEC §8's error rule — any non-OK answer raises an ApiError whose message is
 * `"<status>: <body text>"`, or `"<status>: <status text>"` when the body is empty.
 */

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly body: string,
    statusText: string,
  ) {
    super(`${status}: ${body || statusText}`);
  }

  /** The `message` of a JSON error body (`{message, code}`), if the body is one. */
  get serverMessage(): string | undefined {
    try {
      const parsed = JSON.parse(this.body) as { message?: unknown };
      return typeof parsed.message === 'string' && parsed.message ? parsed.message : undefined;
    } catch {
      return undefined;
    }
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
 * One call: credentials always sent, a body sent as JSON only when given; the parsed JSON answer
 * (undefined when the answer is empty).
 */
export async function apiRequest<T = unknown>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method,
    credentials: 'include',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await throwIfNotOk(response);
  const text = await response.text();
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
  const response = await fetch(url, {
    method,
    credentials: 'include',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await throwIfNotOk(response);
  const items = (await response.json()) as T[];
  const total = Number(response.headers.get('x-total-count') ?? items.length);
  return {
    items,
    total: Number.isFinite(total) ? total : items.length,
    nextCursor: response.headers.get('x-next-cursor') ?? undefined,
  };
}
