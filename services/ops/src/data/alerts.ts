import { SECURITY_ALERTS_KEPT, SECURITY_ALERTS_KEY, type SecurityAlert, SecurityAlertSchema } from '@nrad/contracts';
import type { Logger } from '@nrad/service-kit';
import type { bullConnection } from '@nrad/service-kit/queues';

/**
 * The gateway's security alerts (issue 34): the Redis list `<gateway prefix>security-alerts`,
 * newest first, which the gateway keeps at SECURITY_ALERTS_KEPT entries. An entry that is not an
 * alert is left out (and logged).
 */
export class AlertWatch {
  readonly key: string;

  constructor(
    private readonly redis: Pick<ReturnType<typeof bullConnection>, 'lrange'>,
    gatewayPrefix: string,
    private readonly logger: Logger,
  ) {
    this.key = `${gatewayPrefix}${SECURITY_ALERTS_KEY}`;
  }

  async read(): Promise<SecurityAlert[]> {
    const entries = await this.redis.lrange(this.key, 0, SECURITY_ALERTS_KEPT - 1);
    return entries.flatMap((text) => {
      let parsed: ReturnType<typeof SecurityAlertSchema.safeParse>;
      try {
        parsed = SecurityAlertSchema.safeParse(JSON.parse(text));
      } catch {
        parsed = SecurityAlertSchema.safeParse(undefined);
      }
      if (parsed.success) return [parsed.data];
      this.logger.warn({ key: this.key, entry: text.slice(0, 200) }, 'not a security alert; left out');
      return [];
    });
  }
}
