import Router from '@koa/router';
import {
  ContactAdminRequestSchema,
  type ContactAdminResponse,
  type ContactRequestList,
  type ContactRequestResolved,
  ObjectIdSchema,
  RegisterRequestSchema,
  type RegisterResponse,
  routes,
  SESSION_REFRESH_HEADER,
  UpdateNameRequestSchema,
  type UserResponse,
  VerifyCredentialsRequestSchema,
  type VerifyCredentialsResponse,
} from '@nrad/contracts';
import {
  actorOf,
  adminOf,
  mountRoute,
  notFound,
  parse,
  requireServiceCaller,
  type ServiceState,
  unauthenticated,
  userOf,
} from '@nrad/service-kit';
import * as accounts from '../use-cases/accounts.ts';

/**
 * Public paths (through the gateway) of SPEC §7 that this service owns. What changes an account or
 * is ADMIN's is recorded in the audit trail (action `admin`, `detail.what` saying which) before the
 * answer; a visitor's registration and the credential check are not (the gateway records
 * sign-ins), nor is a user's message to the administrator.
 */
export function apiRoutes(deps: accounts.AccountDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  mountRoute(router, routes.auth.register, async (ctx) => {
    // Anyone the gateway vouches for may register: a visitor (anonymous) or a signed-in user.
    if (!ctx.state.identity || ctx.state.identity.kind === 'service') throw unauthenticated();
    const input = parse(RegisterRequestSchema, ctx.request.body);
    const user = await accounts.register(deps, input);
    // A signed-in user opening an account for someone is an account change; a visitor's own is not.
    if (ctx.state.identity.kind === 'user') {
      await deps.audit.record(actorOf(ctx), 'admin', [], { what: 'register', id: user.id });
    }
    ctx.status = 201;
    return { message: 'Account created successfully', user } satisfies RegisterResponse;
  });

  mountRoute(router, routes.auth.updateName, async (ctx) => {
    const who = userOf(ctx.state);
    const { name } = parse(UpdateNameRequestSchema, ctx.request.body);
    const user = await accounts.updateName(deps, who, name);
    await deps.audit.record(actorOf(ctx), 'admin', [], { what: 'update-name' });
    // The gateway re-reads the user into the session, so the header and tokens show the new name.
    ctx.set(SESSION_REFRESH_HEADER, '1');
    return { user } satisfies UserResponse;
  });

  mountRoute(router, routes.auth.contactAdmin, async (ctx) => {
    const who = userOf(ctx.state);
    const input = parse(ContactAdminRequestSchema, ctx.request.body);
    const request = await accounts.contactAdmin(deps, who, input);
    ctx.status = 201;
    ctx.body = {
      message: 'Your message has been sent to the administrator.',
      request: { id: request.id, status: request.status, createdAt: request.createdAt },
    } satisfies ContactAdminResponse;
  });

  mountRoute(router, routes.auth.contactRequests, async (ctx) => {
    adminOf(ctx.state);
    const inbox = await accounts.contactRequestInbox(deps, ctx.query);
    await deps.audit.record(actorOf(ctx), 'admin', [], { what: 'contact-requests.list' });
    return inbox satisfies ContactRequestList;
  });

  mountRoute(router, routes.auth.resolveContactRequest, async (ctx) => {
    const admin = adminOf(ctx.state);
    const request = await accounts.resolveContactRequest(deps, admin, ctx.params.id);
    await deps.audit.record(actorOf(ctx), 'admin', [], { what: 'contact-request.resolve', id: request.id });
    return { request } satisfies ContactRequestResolved;
  });

  return router;
}

/** Paths only the gateway calls (service identity); the gateway never routes /internal from outside. */
export function internalRoutes(deps: accounts.AccountDeps) {
  const router = new Router<ServiceState>({ prefix: '/internal' });
  // The gateway only: no service checks credentials or looks users up.
  router.use(requireServiceCaller(['gateway']));

  mountRoute(router, routes.auth.verifyCredentials, async (ctx) => {
    const input = parse(VerifyCredentialsRequestSchema, ctx.request.body);
    return (await accounts.verifyCredentials(deps, input)) satisfies VerifyCredentialsResponse;
  });

  mountRoute(router, routes.auth.userById, async (ctx) => {
    const id = ObjectIdSchema.safeParse(ctx.params.id);
    const user = id.success ? await deps.users.findById(id.data) : null;
    if (!user) throw notFound('User not found');
    return { user } satisfies UserResponse;
  });

  return router;
}
