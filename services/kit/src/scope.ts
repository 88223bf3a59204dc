import { AGENCY_CODES, type Agency, type Identity, type Organization, type UserIdentity } from '@nrad/contracts';
import { forbidden, unauthenticated } from './errors.ts';

/**
 * Whose agency data a read or write may touch: one agency's, or every agency's (ADMIN; a service's
 * own job that legitimately reads everything). Only this module makes one (docs/adr/0020): the
 * constructor is private and the class has a private field, so neither `new Scope(…)` nor an
 * object of the same shape (`{ agency: null }`) type-checks as a `Scope`. Every repository method
 * that touches agency data takes a Scope and applies it itself.
 */
export class Scope {
  /** The one agency, or null for every agency (never seen outside: `isAll`, `agencyOr`). */
  readonly #agency: Agency | null;
  /**
   * The organization the scope was made for (ADMIN's is `ADMIN`; null for `Scope.system`): the
   * owner of what an organization keeps to itself rather than shares by agency (a report and its
   * job, ADR 0012: ADMIN's reports are ADMIN's alone). See `owns`.
   */
  readonly organization: Organization | null;
  /** Why a service-internal scope reads everything (`Scope.system`); null for a user's scope. */
  readonly reason: string | null;

  private constructor(agency: Agency | null, organization: Organization | null, reason: string | null) {
    this.#agency = agency;
    this.organization = organization;
    this.reason = reason;
  }

  /** One agency's scope (a user of that agency; an event about that agency's record). */
  static agency(agency: Agency): Scope {
    return new Scope(agency, agency, null);
  }

  /**
   * Every agency's scope for a job of the service itself, not a user's request (the stats rebuild,
   * the links audit, the outbox relay, an event consumer). `reason` says which, so each place that
   * reads everything is found by `grep -rn "Scope.system("`.
   */
  static system(reason: string): Scope {
    if (!reason.trim()) throw new Error('Scope.system needs a reason');
    return new Scope(null, null, reason);
  }

  /** What a verified user may see: their agency's records; ADMIN's are every agency's. */
  static of(user: Pick<UserIdentity, 'organization'>): Scope {
    const { organization } = user;
    return new Scope(organization === 'ADMIN' ? null : organization, organization, null);
  }

  /** Whether this scope covers every agency (ADMIN, or a service's own job). */
  get isAll(): boolean {
    return this.#agency === null;
  }

  /** The agencies covered: the one, or all three. */
  get organizations(): readonly Agency[] {
    return this.#agency === null ? AGENCY_CODES : [this.#agency];
  }

  /** Whether data owned by `organization` is inside the scope (every owner for an all-agency scope). */
  includes(organization: Organization | string | null | undefined): boolean {
    return this.#agency === null || organization === this.#agency;
  }

  /**
   * Whether something an organization keeps to itself (a report) is the scope's own: its
   * organization's (ADMIN's are ADMIN's only), any for a service's own job.
   */
  owns(organization: Organization | string | null | undefined): boolean {
    return this.organization === null || organization === this.organization;
  }

  /** A mongo filter on the owner field of what an organization keeps to itself (see `owns`). */
  ownFilter(): { organization?: Organization } {
    return this.organization === null ? {} : { organization: this.organization };
  }

  /** The one agency, or `all` for an all-agency scope (a list's key, a report's `'ALL'`). */
  agencyOr<T>(all: T): Agency | T {
    return this.#agency ?? all;
  }

  /** A mongo filter on the owner field: `{}` for every agency, `{ [field]: agency }` otherwise. */
  filter<F extends string = 'organization'>(field: F = 'organization' as F): Partial<Record<F, Agency>> {
    return this.#agency === null ? {} : ({ [field]: this.#agency } as Record<F, Agency>);
  }

  /** For logs: the agency, `ALL`, or `system(<reason>)`. */
  toString(): string {
    if (this.reason !== null) return `system(${this.reason})`;
    return this.#agency ?? 'ALL';
  }
}

/** The scope of a verified user (ADMIN: every agency). */
export function scopeOf(user: Pick<UserIdentity, 'organization'>): Scope {
  return Scope.of(user);
}

/** The scope of a request's signed-in user, or 401 (anonymous and service callers have none). */
export function scopeOfRequest(state: { identity?: Identity }): Scope {
  const id = state.identity;
  if (id?.kind !== 'user') throw unauthenticated();
  return Scope.of(id);
}

/** Refuses (403) unless the user oversees every agency (ADMIN). */
export function requireAllAgencies(user: Pick<UserIdentity, 'organization'>, message: string): Scope {
  const scope = Scope.of(user);
  if (!scope.isAll) throw forbidden(message);
  return scope;
}

/** Whether an organization is one of the agencies whose records scopes divide (ADMIN is not). */
export function isAgency(organization: string): organization is Agency {
  return (AGENCY_CODES as readonly string[]).includes(organization);
}
