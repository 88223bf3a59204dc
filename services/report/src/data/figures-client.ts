import {
  type LinkSummary,
  LinkSummarySchema,
  type StatsBreakdown,
  StatsBreakdownSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { fetchAs } from '@nrad/service-kit';
import type { z } from 'zod';

/** What the report service asks of the services that own the figures, always as the report's requester. */
export interface FiguresApi {
  breakdown(user: UserIdentity): Promise<StatsBreakdown>;
  links(user: UserIdentity): Promise<LinkSummary>;
}

/** A service that did not answer as expected (the message names which, never what it said). */
export class FiguresUnavailableError extends Error {
  override name = 'FiguresUnavailableError';
}

/**
 * The stats and linking services over HTTP, each request vouched for with an identity token of the
 * requester signed with the shared secret: those services decide the scope (an agency's records,
 * ADMIN's all), exactly as for the user's own requests.
 */
export function figuresClient(
  urls: { stats: string; linking: string },
  secret: string,
  timeoutMs = 30_000,
): FiguresApi {
  const get = async <S extends z.ZodType>(
    service: string,
    base: string,
    path: string,
    user: UserIdentity,
    schema: S,
  ) => {
    let res: Response;
    try {
      res = await fetchAs(user, secret, new URL(path, base), {}, timeoutMs);
    } catch {
      throw new FiguresUnavailableError(`The ${service} service did not answer`);
    }
    if (!res.ok) throw new FiguresUnavailableError(`The ${service} service answered ${res.status}`);
    const parsed = schema.safeParse(await res.json().catch(() => undefined));
    if (!parsed.success) throw new FiguresUnavailableError(`The ${service} service's answer was not understood`);
    return parsed.data as z.output<S>;
  };
  return {
    breakdown: (user) => get('stats', urls.stats, '/api/stats/breakdown', user, StatsBreakdownSchema),
    links: (user) => get('linking', urls.linking, '/api/links/summary', user, LinkSummarySchema),
  };
}
