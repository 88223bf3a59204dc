/**
 * A client that knows only SPEC §7: JSON over HTTP with a cookie jar, the way the browser app
 * calls the API. Used by end-to-end tests against a running system.
 */
// Response bodies are whatever SPEC §7 says; tests assert on them field by field.
// biome-ignore lint/suspicious/noExplicitAny: a test client reads arbitrary JSON
type Json = any;

export class SpecClient {
  private cookies = new Map<string, string>();

  constructor(private readonly base: string) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json; headers: Headers }> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(new URL(path, this.base), {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  get = (path: string) => this.call('GET', path);
  post = (path: string, body?: unknown) => this.call('POST', path, body);
  put = (path: string, body?: unknown) => this.call('PUT', path, body);
  delete = (path: string) => this.call('DELETE', path);

  /** The cookie header this client would send (to replay it elsewhere). */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}
