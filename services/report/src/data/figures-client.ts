import {
  type LinkSummary,
  LinkSummarySchema,
  type StatsBreakdown,
  StatsBreakdownSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { fetchAs, type IdentitySigner } from '@nrad/service-kit';
import type { z } from 'zod';

/**
 * Whose figures: the report's requester, and the gateway's grant for them (identity.ts), with
 * which the report service asks on their behalf; undefined when the request came without one.
 */
export interface FiguresRequester {
  user: UserIdentity;
  grant: string | undefined;
}

/** What the report service asks of the services that own the figures, always as the report's requester. */
export interface FiguresApi {
  breakdown(requester: FiguresRequester): Promise<StatsBreakdown>;
  links(requester: FiguresRequester): Promise<LinkSummary>;
}

/** A service that did not answer as expected (the message names which, never what it said). */
export class FiguresUnavailableError extends Error {
  override name = 'FiguresUnavailableError';
}

/**
 * The stats and linking services over HTTP, each request signed by the report service on the
 * requester's behalf with the gateway's grant: those services decide the scope (an agency's
 * records, ADMIN's all), exactly as for the user's own requests.
 */
export function figuresClient(
  urls: { stats: string; linking: string },
  signer: IdentitySigner,
  timeoutMs = 30_000,
): FiguresApi {
  const get = async <S extends z.ZodType>(
    service: string,
    base: string,
    path: string,
    requester: FiguresRequester,
    schema: S,
  ) => {
    if (!requester.grant) throw new FiguresUnavailableError('The request came without a grant to ask for figures');
    let res: Response;
    try {
      res = await fetchAs({ kind: 'on-behalf', proof: requester.grant }, signer, new URL(path, base), {}, timeoutMs);
    } catch {
      throw new FiguresUnavailableError(`The ${service} service did not answer`);
    }
    if (!res.ok) throw new FiguresUnavailableError(`The ${service} service answered ${res.status}`);
    const parsed = schema.safeParse(await res.json().catch(() => undefined));
    if (!parsed.success) throw new FiguresUnavailableError(`The ${service} service's answer was not understood`);
    return parsed.data as z.output<S>;
  };
  return {
    breakdown: (requester) => get('stats', urls.stats, '/api/stats/breakdown', requester, StatsBreakdownSchema),
    links: (requester) => get('linking', urls.linking, '/api/links/summary', requester, LinkSummarySchema),
  };
}
