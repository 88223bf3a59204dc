import http from 'node:http';
import {
  ERROR_CODES,
  type ErrorBody,
  IDENTITY_HEADER,
  REQUEST_ID_HEADER,
  SESSION_REFRESH_HEADER,
} from '@nrad/contracts';
import { AppError, GRANT_HEADER, type Logger } from '@nrad/service-kit';
import type Koa from 'koa';

/** Headers that belong to one hop, or that must never travel between the public side and a service. */
const DROP_REQUEST = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'host',
  'cookie', // the session is the gateway's; services get the identity token instead
  'authorization',
  IDENTITY_HEADER, // a client cannot vouch for itself
  GRANT_HEADER, // nor grant itself anything
  REQUEST_ID_HEADER,
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
]);
const DROP_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'set-cookie', // only the gateway sets cookies
  'content-length', // Koa streams the body and sets framing itself
  SESSION_REFRESH_HEADER,
]);

/**
 * How long the gateway keeps an idle connection to a service (ms). A service closes one after 5 s
 * (service-kit's server); were the gateway to keep it longer — Node's agent keeps an idle connection
 * forever unless given a timeout, and only then takes the service's `Keep-Alive: timeout` hint
 * less 1 s — a request sent as the service closes it is reset, unanswered, and the gateway answers
 * 503 (most often under load, when the close is seen late). Closing first, with room for timers that
 * run late, leaves no such moment; a new connection on the same host costs a fraction of a millisecond.
 */
export const IDLE_CONNECTION_MS = 2_000;

export interface ForwardResult {
  /** The service says the signed-in user's details changed. */
  refreshSession: boolean;
}

/**
 * Forwards a request to a service, streaming in both directions, with the identity token and the
 * request id. A 5xx from the service is replaced by a generic body (its details stay in its logs);
 * an unreachable service is a 503.
 */
export function createProxy(options: { timeoutMs: number; logger: Logger }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: IDLE_CONNECTION_MS });

  /**
   * Forwards to `target` (a service's origin) the path the gateway routed, as it was checked
   * (request-checks.ts), with its query: the path is never resolved again (a URL resolver would read `\`
   * as `/` and drop dot segments, and an absolute request target would name its own host).
   */
  async function forward(
    ctx: Koa.Context,
    target: string,
    identityToken: string,
    grant?: string,
  ): Promise<ForwardResult> {
    const origin = new URL(target);
    const path = ctx.querystring ? `${ctx.path}?${ctx.querystring}` : ctx.path;
    const url = { protocol: origin.protocol, hostname: origin.hostname, port: origin.port, path };
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(ctx.req.headers)) {
      if (value !== undefined && !DROP_REQUEST.has(name)) headers[name] = value;
    }
    headers[IDENTITY_HEADER] = identityToken;
    if (grant) headers[GRANT_HEADER] = grant;
    headers[REQUEST_ID_HEADER] = ctx.state.requestId as string;
    headers['x-forwarded-for'] = ctx.ip;
    headers['x-forwarded-proto'] = ctx.protocol;

    let upstream: http.IncomingMessage;
    try {
      upstream = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request({ ...url, method: ctx.method, headers, agent, timeout: options.timeoutMs });
        req.once('response', resolve);
        req.once('error', reject);
        req.once('timeout', () => req.destroy(new Error('upstream timeout')));
        ctx.req.once('aborted', () => req.destroy(new Error('client aborted')));
        ctx.req.pipe(req);
      });
    } catch (err) {
      options.logger.error({ err, target: origin.origin, path: ctx.path }, 'service unreachable');
      throw new AppError(ERROR_CODES.unavailable, 'The service is temporarily unavailable. Please try again shortly.');
    }

    const status = upstream.statusCode ?? 502;
    if (status >= 500) {
      upstream.resume(); // discard: internals never cross the gateway
      // A busy service says when to try again (a busy store: issue 37); nothing else of it passes.
      const retryAfter = upstream.headers['retry-after'];
      if (status === 503 && typeof retryAfter === 'string' && /^\d{1,5}$/.test(retryAfter)) {
        ctx.set('Retry-After', retryAfter);
      }
      options.logger.error({ status, target: origin.origin, path: ctx.path }, 'service error');
      ctx.status = status;
      ctx.body = (
        status === 503
          ? {
              message: 'The service is temporarily unavailable. Please try again shortly.',
              code: ERROR_CODES.unavailable,
            }
          : { message: 'Internal server error', code: ERROR_CODES.internal }
      ) satisfies ErrorBody;
      return { refreshSession: false };
    }

    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value !== undefined && !DROP_RESPONSE.has(name)) ctx.set(name, value as string | string[]);
    }
    ctx.status = status;
    if (status === 204 || status === 304 || ctx.method === 'HEAD') {
      upstream.resume();
      ctx.body = null; // Koa turns an emptied 200 into 204; HEAD must keep the service's status
      ctx.status = status;
    } else {
      ctx.body = upstream;
    }
    return { refreshSession: upstream.headers[SESSION_REFRESH_HEADER] === '1' };
  }

  return { forward, close: () => agent.destroy() };
}
