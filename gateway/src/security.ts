import { ERROR_CODES } from '@nrad/contracts';
import { AppError } from '@nrad/service-kit';
import type { Middleware } from 'koa';
import helmet from 'koa-helmet';

/**
 * Security headers for every response. The content-security policy allows our own origin, plus
 * the origins of remotes served from elsewhere (`remoteOrigins`: their scripts load as <script>
 * and their manifests by fetch); inline styles are allowed because the UI library injects them;
 * no inline scripts, no eval; nothing may frame the app.
 */
export function securityHeaders(remoteOrigins: readonly string[] = []): Middleware {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...remoteOrigins],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", ...remoteOrigins],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'no-referrer' },
  });
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Refuses state-changing requests that a browser says come from another site. SameSite=Lax
 * cookies already stop most of them; this also covers same-site subdomains and old browsers.
 */
export function sameOriginWrites(): Middleware {
  return async function sameOriginWrites(ctx, next) {
    if (UNSAFE.has(ctx.method)) {
      const origin = ctx.get('origin');
      const site = ctx.get('sec-fetch-site');
      let foreign = site === 'cross-site' || site === 'same-site';
      if (origin && origin !== 'null') {
        try {
          foreign ||= new URL(origin).host !== ctx.host;
        } catch {
          foreign = true;
        }
      } else if (origin === 'null') {
        foreign = true;
      }
      if (foreign) throw new AppError(ERROR_CODES.forbidden, 'Cross-site request refused');
    }
    await next();
  };
}
