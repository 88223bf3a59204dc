/**
 * Serves the built frontends (ARCHITECTURE.md: the gateway serves the shell, each remote under
 * /mf/<name>/, and the manifest of remotes):
 *
 * - GET /mf/remotes.json: where each remote is — every frontend under FRONTENDS_DIR whose build has
 *   an `mf-manifest.json` (at /mf/<name>/), then MF_REMOTES (name → URL) over them, so a remote
 *   can be redeployed elsewhere without rebuilding the shell;
 * - /mf/<name>/<file>: a remote's files; /assets/<file>: the shell's;
 * - any other path: the shell's index.html (client-side routing), or 404 for a missing file.
 *
 * Hashed files are cached for a year; entry files (index.html, remoteEntry.js, manifests) are
 * revalidated every time. A `.gz` written by the build is sent to browsers that take gzip.
 * Source maps are not served.
 */
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  FRONTEND_NAME,
  HASHED_FILE,
  REMOTE_MANIFEST_FILE,
  REMOTES_MANIFEST_PATH,
  REMOTES_PREFIX,
  type RemotesManifest,
} from '@nrad/contracts';
import type { Context, Middleware } from 'koa';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

export interface FrontendOptions {
  /** The folder holding each frontend's folder (`<dir>/<name>/dist`). */
  dir: string;
  /** Remotes served from elsewhere, or moved: name → URL of its mf-manifest.json. */
  remotes: Readonly<Record<string, string>>;
}

/** The manifest of remotes: those built under `dir`, then the configured ones over them. */
export function remotesManifest(options: FrontendOptions): RemotesManifest {
  const entries = new Map<string, string>();
  const names = existsSync(options.dir) ? readdirSync(options.dir) : [];
  for (const name of names.sort()) {
    if (name === 'shell' || !FRONTEND_NAME.test(name)) continue;
    if (existsSync(path.join(options.dir, name, 'dist', REMOTE_MANIFEST_FILE))) {
      entries.set(name, `${REMOTES_PREFIX}/${name}/${REMOTE_MANIFEST_FILE}`);
    }
  }
  for (const [name, entry] of Object.entries(options.remotes)) entries.set(name, entry);
  return { remotes: [...entries].map(([name, entry]) => ({ name, entry })) };
}

/** A file under `root` for a URL path below it, or undefined (outside it, hidden, a map, missing). */
function fileUnder(root: string, relative: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.split('/').some((part) => part.startsWith('.'))) return undefined;
  if (decoded.endsWith('.map') || decoded.endsWith('.gz')) return undefined;
  const file = path.resolve(root, `.${path.posix.normalize(`/${decoded}`)}`);
  if (!file.startsWith(`${root}${path.sep}`)) return undefined;
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

function send(ctx: Context, file: string, cacheControl: string): void {
  const gzipped = `${file}.gz`;
  const useGzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip' && existsSync(gzipped);
  const served = useGzip ? gzipped : file;
  const stat = statSync(served);
  ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  ctx.set('Cache-Control', cacheControl);
  ctx.vary('Accept-Encoding');
  ctx.lastModified = stat.mtime;
  ctx.status = 200; // `fresh` compares the validators of a successful answer only
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (useGzip) ctx.set('Content-Encoding', 'gzip');
  ctx.length = stat.size;
  if (ctx.method !== 'HEAD') ctx.body = createReadStream(served); // HEAD: status 200, headers, no body
}

/** The middleware that serves the frontends (GET and HEAD outside /api). */
export function frontendRoutes(options: FrontendOptions): Middleware {
  const dir = path.resolve(options.dir);
  const shellDist = path.join(dir, 'shell', 'dist');
  return async function frontends(ctx, next) {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path === '/api' || ctx.path.startsWith('/api/')) {
      return next();
    }
    if (ctx.path === REMOTES_MANIFEST_PATH) {
      ctx.set('Cache-Control', REVALIDATE);
      ctx.body = remotesManifest({ ...options, dir });
      return;
    }
    const remote = /^\/mf\/([^/]+)\/(.+)$/.exec(ctx.path);
    if (remote) {
      const [, name, rest] = remote as unknown as [string, string, string];
      const file =
        FRONTEND_NAME.test(name) && name !== 'shell' ? fileUnder(path.join(dir, name, 'dist'), rest) : undefined;
      if (!file) return next();
      send(ctx, file, HASHED_FILE.test(file) ? IMMUTABLE : REVALIDATE);
      return;
    }
    if (ctx.path.startsWith('/assets/')) {
      const file = fileUnder(shellDist, ctx.path.slice(1));
      if (!file) return next();
      send(ctx, file, HASHED_FILE.test(file) ? IMMUTABLE : REVALIDATE);
      return;
    }
    // A path that names a file (an extension) is not a screen: 404 rather than the app.
    if (path.posix.extname(ctx.path) || ctx.path.startsWith(`${REMOTES_PREFIX}/`)) return next();
    const index = path.join(shellDist, 'index.html');
    if (!existsSync(index)) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The NRAD web app is not built. Run `npm run build` (npm start does it).\n';
      return;
    }
    send(ctx, index, REVALIDATE);
  };
}
