import { z } from 'zod';
import { ObjectIdSchema } from './common.ts';
import { AgencySchema, OrganizationSchema } from './organizations.ts';
import { safeText } from './text.ts';

// Messages of SPEC §5 (the login form shows them as they are).
const INVALID_EMAIL = 'Invalid email';
const REQUIRED = 'String must contain at least 1 character(s)';

/** Passwords are hashed with argon2id; longer input only costs CPU, so it is bounded. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

const EmailSchema = z
  .string({ error: INVALID_EMAIL })
  .trim()
  .max(254, 'Email is too long')
  .pipe(z.email(INVALID_EMAIL));

/** A person's name (registration, a name change): one line, no hidden characters, stored NFC. */
const NameSchema = safeText(
  z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(100, 'Name must be at most 100 characters'),
  { label: 'Name' },
);

/** POST /api/auth/login */
export const LoginRequestSchema = z.strictObject({
  email: EmailSchema,
  password: z.string({ error: REQUIRED }).min(1, REQUIRED).max(PASSWORD_MAX_LENGTH, 'Password is too long'),
});
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

/** POST /api/auth/register. ADMIN cannot be registered: only BPS, FIA, CUS are accepted. */
export const RegisterRequestSchema = z.strictObject({
  name: NameSchema,
  email: EmailSchema,
  password: z
    .string({ error: `Password must be at least ${PASSWORD_MIN_LENGTH} characters` })
    .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH, `Password must be at most ${PASSWORD_MAX_LENGTH} characters`),
  role: safeText(
    z
      .string({ error: 'Role is required' })
      .trim()
      .min(1, 'Role is required')
      .max(100, 'Role must be at most 100 characters'),
    { label: 'Role' },
  ),
  organization: AgencySchema,
});
export type RegisterRequest = z.infer<typeof RegisterRequestSchema>;

/** The user as the client reads it (SPEC §3: name, organization, role; id and email besides). */
export const PublicUserSchema = z.object({
  id: ObjectIdSchema,
  name: z.string(),
  email: z.string(),
  organization: OrganizationSchema,
  role: z.string(),
});
export type PublicUser = z.infer<typeof PublicUserSchema>;

/** Answer of POST /api/auth/login, GET /api/auth/user and PUT /api/auth/update-name. */
export const UserResponseSchema = z.object({ user: PublicUserSchema });
export type UserResponse = z.infer<typeof UserResponseSchema>;

/** PUT /api/auth/update-name */
export const UpdateNameRequestSchema = z.strictObject({ name: NameSchema });
export type UpdateNameRequest = z.infer<typeof UpdateNameRequestSchema>;

const CONTACT_REQUIRED = 'Please fill in both subject and message fields.';

/** POST /api/contact-admin */
export const ContactAdminRequestSchema = z.strictObject({
  subject: safeText(
    z
      .string({ error: CONTACT_REQUIRED })
      .trim()
      .min(1, CONTACT_REQUIRED)
      .max(200, 'Subject must be at most 200 characters'),
    { label: 'Subject' },
  ),
  message: safeText(
    z
      .string({ error: CONTACT_REQUIRED })
      .trim()
      .min(1, CONTACT_REQUIRED)
      .max(5000, 'Message must be at most 5000 characters'),
    { label: 'Message', multiline: true },
  ),
});
export type ContactAdminRequest = z.infer<typeof ContactAdminRequestSchema>;

export const CONTACT_STATUSES = ['open', 'resolved'] as const;

/** A stored contact request (SPEC §3). */
export const ContactRequestSchema = z.object({
  id: ObjectIdSchema,
  userId: ObjectIdSchema,
  userEmail: z.string(),
  userName: z.string(),
  userOrganization: OrganizationSchema,
  subject: z.string(),
  message: z.string(),
  status: z.enum(CONTACT_STATUSES),
  createdAt: z.string(),
  resolvedAt: z.string().nullable(),
});
export type ContactRequest = z.infer<typeof ContactRequestSchema>;

/** Answer of POST /api/contact-admin. */
export const ContactAdminResponseSchema = z.object({
  message: z.literal('Your message has been sent to the administrator.'),
  request: ContactRequestSchema.pick({ id: true, status: true, createdAt: true }),
});
export type ContactAdminResponse = z.infer<typeof ContactAdminResponseSchema>;

/** Answer of POST /api/auth/register. */
export const RegisterResponseSchema = z.object({
  message: z.literal('Account created successfully'),
  user: PublicUserSchema,
});
export type RegisterResponse = z.infer<typeof RegisterResponseSchema>;

/** Answer of POST /api/auth/logout. */
export const LogoutResponseSchema = z.object({ message: z.literal('Successfully logged out') });

/** Internal (gateway → auth): verify a sign-in. Never routed from outside. */
export const VerifyCredentialsRequestSchema = LoginRequestSchema;
export const VerifyCredentialsResponseSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), user: PublicUserSchema }),
  z.object({ ok: z.literal(false) }),
]);
export type VerifyCredentialsResponse = z.infer<typeof VerifyCredentialsResponseSchema>;
