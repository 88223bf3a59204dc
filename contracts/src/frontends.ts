import { z } from 'zod';

/**
 * How the gateway serves the built frontends, shared by the build (which names the files), the
 * gateway (which serves them) and the shell (which reads the manifest of remotes).
 */

/** A content hash of 12 hex digits before the extension (`[name].<hash>.js`): cached for a year. */
export const HASH_LENGTH = 12;
export const HASHED_FILE = /\.[0-9a-f]{12}\.(js|css)$/;

/** Where the gateway serves each remote's files (`/mf/<name>/…`). */
export const REMOTES_PREFIX = '/mf';
/** GET: the manifest of remotes. */
export const REMOTES_MANIFEST_PATH = '/mf/remotes.json';
/** The file a remote's build writes for the federation runtime (its entry). */
export const REMOTE_MANIFEST_FILE = 'mf-manifest.json';
/** A frontend's name (a folder under frontends/, a remote's name in the manifest). */
export const FRONTEND_NAME = /^[a-z][a-z0-9-]*$/;

/** The answer of GET /mf/remotes.json: each deployed remote and the URL of its mf-manifest.json. */
export const RemotesManifestSchema = z.object({
  remotes: z.array(
    z.object({
      name: z.string().regex(FRONTEND_NAME),
      entry: z.string().min(1),
    }),
  ),
});
export type RemotesManifest = z.infer<typeof RemotesManifestSchema>;
