import type { Middleware } from 'koa';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** A Prometheus registry per app (no global registry), with process metrics and request timings. */
export function createMetrics(service: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const middleware: Middleware = async function metrics(ctx, next) {
    const end = duration.startTimer();
    try {
      await next();
    } finally {
      // The route pattern, never the raw path: ids in paths would explode the label set.
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      end({ method: ctx.method, route: String(route), status: String(ctx.status) });
    }
  };
  return { registry, middleware };
}
export type Metrics = ReturnType<typeof createMetrics>;
