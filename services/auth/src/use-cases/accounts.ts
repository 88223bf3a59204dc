import {
  type ContactAdminRequest,
  type ContactRequest,
  type ContactRequestList,
  ContactRequestPageQuerySchema,
  ERROR_CODES,
  ObjectIdSchema,
  type PublicUser,
  type RegisterRequest,
  type UserIdentity,
  type VerifyCredentialsResponse,
} from '@nrad/contracts';
import { AppError, type AuditTrail, conflict, type Logger, notFound, parse, unauthenticated } from '@nrad/service-kit';
import type { ContactRequestRepository } from '../data/contact-requests.ts';
import { EmailTakenError, type UserRepository } from '../data/users.ts';
import type { PasswordHasher } from '../passwords.ts';

export interface AccountDeps {
  users: UserRepository;
  contactRequests: ContactRequestRepository;
  passwords: PasswordHasher;
  logger: Logger;
  /** The audit trail (issue 21): the routes record ADMIN's actions and account changes before answering. */
  audit: Pick<AuditTrail, 'record'>;
}

/** The message the Register screen looks for (SPEC §8). */
export const USER_EXISTS_MESSAGE = 'User already exists';

/** Registers an agency user. The schema already refused ADMIN and unknown organizations. */
export async function register(deps: AccountDeps, input: RegisterRequest): Promise<PublicUser> {
  // Checked first so a duplicate does not cost a hash; the unique index still decides races.
  if (await deps.users.existsByEmail(input.email)) throw conflict(USER_EXISTS_MESSAGE, ERROR_CODES.userExists);
  const passwordHash = await deps.passwords.hash(input.password);
  try {
    const user = await deps.users.create({
      name: input.name,
      email: input.email,
      passwordHash,
      role: input.role,
      organization: input.organization,
    });
    deps.logger.info({ userId: user.id, organization: user.organization }, 'user registered');
    return user;
  } catch (err) {
    if (err instanceof EmailTakenError) throw conflict(USER_EXISTS_MESSAGE, ERROR_CODES.userExists);
    throw err;
  }
}

/** Checks a sign-in. An unknown email takes as long as a wrong password and answers the same. */
export async function verifyCredentials(
  deps: AccountDeps,
  input: { email: string; password: string },
): Promise<VerifyCredentialsResponse> {
  const found = await deps.users.findCredentials(input.email);
  if (!found) {
    await deps.passwords.burn(input.password);
    return { ok: false };
  }
  const ok = await deps.passwords.verify(found.passwordHash, input.password);
  return ok ? { ok: true, user: found.user } : { ok: false };
}

export async function updateName(deps: AccountDeps, who: UserIdentity, name: string): Promise<PublicUser> {
  const user = await deps.users.updateName(who.userId, name);
  if (!user) throw unauthenticated('Your account no longer exists');
  return user;
}

export async function contactAdmin(
  deps: AccountDeps,
  who: UserIdentity,
  input: ContactAdminRequest,
): Promise<ContactRequest> {
  const user = await deps.users.findById(who.userId);
  if (!user) throw unauthenticated('Your account no longer exists');
  const request = await deps.contactRequests.create({
    userId: user.id,
    userEmail: user.email,
    userName: user.name,
    userOrganization: user.organization,
    subject: input.subject,
    message: input.message,
  });
  deps.logger.info({ contactRequestId: request.id, userId: user.id }, 'contact request stored');
  return request;
}

/** ADMIN's inbox (the route checks the caller is ADMIN): open first, newest first, a page at a time. */
export async function contactRequestInbox(deps: AccountDeps, query: unknown): Promise<ContactRequestList> {
  return deps.contactRequests.inbox(parse(ContactRequestPageQuerySchema, query));
}

/** ADMIN marks a contact request resolved (status resolved, resolvedAt set; again: unchanged). */
export async function resolveContactRequest(deps: AccountDeps, admin: UserIdentity, id: string) {
  const valid = ObjectIdSchema.safeParse(id);
  const request = valid.success ? await deps.contactRequests.resolve(valid.data, new Date()) : null;
  if (!request) throw notFound('Contact request not found');
  deps.logger.info({ contactRequestId: request.id, userId: admin.userId }, 'contact request resolved');
  return request;
}

/**
 * Creates the ADMIN account from configuration when no user has its email. An existing account
 * is left alone (its password may have been changed since); one that is not ADMIN is a
 * misconfiguration worth stopping for.
 */
export async function ensureAdmin(
  deps: AccountDeps,
  admin: { email: string; password: string; name: string },
): Promise<'created' | 'exists'> {
  const existing = await deps.users.findCredentials(admin.email);
  if (existing) {
    if (existing.user.organization !== 'ADMIN') {
      throw new AppError(ERROR_CODES.conflict, `ADMIN_EMAIL belongs to a ${existing.user.organization} user`);
    }
    return 'exists';
  }
  try {
    await deps.users.create({
      name: admin.name,
      email: admin.email,
      passwordHash: await deps.passwords.hash(admin.password),
      role: 'Administrator',
      organization: 'ADMIN',
    });
  } catch (err) {
    // Two replicas starting at once: the other one created it.
    if (err instanceof EmailTakenError) return 'exists';
    throw err;
  }
  deps.logger.info('ADMIN account created');
  return 'created';
}
