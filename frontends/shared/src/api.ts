/**
 * The API client every screen uses: same-origin calls with the session cookie, JSON bodies, and
 * SPEC §8's error rule — any non-OK answer raises an ApiError whose message is
 * `"<status>: <body text>"`, or `"<status>: <status text>"` when the body is empty.
 */
import {
  fillPath,
  NEXT_CURSOR_HEADER,
  type PathParamNames,
  type PathParams,
  type RouteBody,
  type RouteItem,
  type RouteQuery,
  type RouteResponse,
  type RouteSpec,
  TOTAL_COUNT_HEADER,
} from '@nrad/contracts';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly body: string,
    statusText: string,
  ) {
    super(`${status}: ${body || statusText}`);
  }

  /** The body parsed as JSON, when it is an object (our errors are `{message, code}`). */
  private get json(): Record<string, unknown> {
    try {
      const parsed: unknown = JSON.parse(this.body);
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  /** The `message` of a JSON error body, if the body is one. */
  get serverMessage(): string | undefined {
    const { message } = this.json;
    return typeof message === 'string' && message ? message : undefined;
  }

  /** The `code` of a JSON error body (ERROR_CODES), if the body is one. */
  get code(): string | undefined {
    const { code } = this.json;
    return typeof code === 'string' ? code : undefined;
  }
}

/** What a failure toast shows: the server's message when it sent one, else `fallback`. */
export function messageOf(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return error.serverMessage ?? fallback;
  return fallback;
}

/** Raises an ApiError for a non-OK response (SPEC §8). */
export async function throwIfNotOk(response: Response): Promise<void> {
  if (!response.ok) throw new ApiError(response.status, await response.text(), response.statusText);
}

/**
 * Sends one call: credentials always, a body as JSON only when given — or, for a form, as
 * multipart/form-data (the browser writes its Content-Type with the boundary); a non-OK answer throws.
 */
async function send(method: string, url: string, body?: unknown): Promise<Response> {
  const form = body instanceof FormData;
  const response = await fetch(url, {
    method,
    credentials: 'include',
    headers: body === undefined || form ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
  });
  await throwIfNotOk(response);
  return response;
}

/** An answer's parsed JSON (undefined when empty). */
async function jsonOf<T>(response: Response): Promise<T> {
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** One call (a `FormData` body goes as a multipart form); the parsed JSON answer (undefined when empty). */
export async function apiRequest<T = unknown>(method: string, url: string, body?: unknown): Promise<T> {
  return jsonOf<T>(await send(method, url, body));
}

/** One page of a list answer: the items, the whole list's size and the next page's cursor. */
export interface Page<T> {
  items: T[];
  total: number;
  nextCursor: string | undefined;
}

/** A paged list call (records lists answer an array plus X-Total-Count and X-Next-Cursor). */
export async function apiPage<T>(method: string, url: string, body?: unknown): Promise<Page<T>> {
  const response = await send(method, url, body);
  const items = (await response.json()) as T[];
  const total = Number(response.headers.get(TOTAL_COUNT_HEADER) ?? items.length);
  return {
    items,
    total: Number.isFinite(total) ? total : items.length,
    nextCursor: response.headers.get(NEXT_CURSOR_HEADER) ?? undefined,
  };
}

/**
 * How a declared route is called (docs/adr/0019): its path parameters (required when the path
 * names any), its query (undefined values left out) and its body (a form for a multipart route).
 */
export type CallOptions<R extends RouteSpec> = ([PathParamNames<R['path']>] extends [never]
  ? { params?: undefined }
  : { params: PathParams<R> }) & {
  query?: RouteQuery<R> | Record<string, string | number | boolean | undefined>;
  body?: RouteBody<R> | FormData;
};

/** The URL of a declared route: its path with the parameters filled in, and the query. */
export function routeUrl<R extends RouteSpec>(route: R, options?: Omit<CallOptions<R>, 'body'>): string {
  const path = fillPath(route.path, (options?.params ?? {}) as Record<string, string>);
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(options?.query ?? {})) {
    if (value !== undefined) query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

type Args<R extends RouteSpec> = [PathParamNames<R['path']>] extends [never]
  ? [options?: CallOptions<R>]
  : [options: CallOptions<R>];

/** Calls a declared route (`callApi(routes.records.get, { params: { id } })`): its declared answer. */
export function callApi<R extends RouteSpec>(route: R, ...[options]: Args<R>): Promise<RouteResponse<R>> {
  return apiRequest<RouteResponse<R>>(route.method, routeUrl(route, options), options?.body);
}

/** Calls a declared route: its declared answer and the answer's headers (a state a header carries). */
export async function callApiWithHeaders<R extends RouteSpec>(
  route: R,
  ...[options]: Args<R>
): Promise<{ data: RouteResponse<R>; headers: Headers }> {
  const response = await send(route.method, routeUrl(route, options), options?.body);
  return { data: await jsonOf<RouteResponse<R>>(response), headers: response.headers };
}

/** One page of a declared paged route (the items, X-Total-Count, X-Next-Cursor). */
export function callPage<R extends RouteSpec & { paged: true }>(
  route: R,
  ...[options]: Args<R>
): Promise<Page<RouteItem<R>>> {
  return apiPage<RouteItem<R>>(route.method, routeUrl(route, options), options?.body);
}
