import type { ServiceHealth } from '@nrad/contracts';
import { z } from 'zod';

const ReadyzSchema = z.object({
  ready: z.boolean(),
  checks: z.record(z.string(), z.enum(['up', 'down'])),
  version: z.string().optional(),
});

/**
 * A service's /readyz: ready (200), each dependency up or down, and its build. A service that
 * does not answer in `timeoutMs`, or answers something else, is shown not ready with no checks.
 */
export async function readService(service: { name: string; url: string }, timeoutMs = 2000): Promise<ServiceHealth> {
  try {
    const res = await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = ReadyzSchema.parse(await res.json());
    return { name: service.name, ready: res.ok && body.ready, checks: body.checks, version: body.version ?? null };
  } catch {
    return { name: service.name, ready: false, checks: {}, version: null };
  }
}
