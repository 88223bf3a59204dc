/**
 * The fault suite's client of the gateway: JSON (or a multipart form) over HTTP with a cookie jar,
 * as the browser app calls the API, knowing only the public paths. A call that gets no answer
 * (refused, reset, timed out) resolves with status 0 and the reason, so that callers decide what
 * to retry.
 */

/** An answer; `status` 0 when none came (`error` says why). */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field by the suite
  body: any;
  text: string;
  headers: Headers;
  error?: string;
}

export class GatewayClient {
  private readonly cookies = new Map<string, string>();

  constructor(
    readonly base: string,
    private readonly timeoutMs = 30_000,
  ) {}

  async call(method: string, pathname: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    // A browser sends its origin with writes; the gateway refuses writes from other origins.
    if (method !== 'GET') headers.origin = this.base;
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const form = body instanceof FormData ? body : undefined;
    const payload = body === undefined || form ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await fetch(new URL(pathname, this.base), {
        method,
        headers,
        signal: AbortSignal.timeout(this.timeoutMs),
        ...(form ? { body: form } : payload !== undefined ? { body: payload } : {}),
      });
      text = await res.text();
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      return {
        status: 0,
        body: undefined,
        text: '',
        headers: new Headers(),
        error: cause?.code ?? (err as Error).message,
      };
    }
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = cookie.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text, headers: res.headers };
  }

  get = (pathname: string) => this.call('GET', pathname);
  post = (pathname: string, body?: unknown) => this.call('POST', pathname, body);

  /** Bytes of a download (the template), or an error naming the status. */
  async download(pathname: string): Promise<Uint8Array> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(pathname, this.base), { headers, signal: AbortSignal.timeout(this.timeoutMs) });
    if (!res.ok) throw new Error(`GET ${pathname} answered ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  }
}

/** An answer as a short text for logs and errors. */
export function describe(a: Answer): string {
  return a.status === 0 ? `no answer (${a.error})` : `${a.status} ${a.text.slice(0, 200)}`;
}

/** A call that must answer `status`, or an error saying what came. */
export async function expectStatus(status: number, call: Promise<Answer>, what: string): Promise<Answer> {
  const a = await call;
  if (a.status !== status) throw new Error(`${what}: expected ${status}, got ${describe(a)}`);
  return a;
}
