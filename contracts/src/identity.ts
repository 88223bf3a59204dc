import { z } from 'zod';
import { ObjectIdSchema } from './common.ts';
import { OrganizationSchema } from './organizations.ts';

/**
 * Who a request is from, as the gateway vouches for it in the signed identity token it sends to
 * services (ARCHITECTURE.md, "Identity between gateway and services").
 *
 * - `user`: a signed-in user; services authorize by `organization`.
 * - `anonymous`: a visitor without a session on a public path (registration).
 * - `service`: the gateway itself on internal paths (credential checks, user look-ups).
 */
export const IdentitySchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('user'),
    userId: ObjectIdSchema,
    name: z.string(),
    organization: OrganizationSchema,
    role: z.string(),
  }),
  z.object({ kind: z.literal('anonymous') }),
  z.object({ kind: z.literal('service'), service: z.string().min(1) }),
]);
export type Identity = z.infer<typeof IdentitySchema>;
export type UserIdentity = Extract<Identity, { kind: 'user' }>;

/** The HTTP header that carries the identity token from the gateway to a service. */
export const IDENTITY_HEADER = 'x-nrad-identity';
/** The HTTP header that carries the request id through every hop. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** A service sets this header on a response when the signed-in user's details changed. */
export const SESSION_REFRESH_HEADER = 'x-nrad-session-refresh';
