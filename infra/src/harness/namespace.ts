/**
 * The infrastructure of this test run (started once by the global setup) and a namespace that is
 * this test file's alone: its database names, Redis key prefix and JetStream stream names and
 * subjects start with it, so test files never see each other's data, in parallel or in sequence.
 * Everything under the namespace is removed after the file's tests, whether they passed or not.
 */
export interface TestNamespace {
  ns: string;
  mongoUrl: string;
  natsUrl: string;
  redisUrl: string;
  /** A database name of this namespace, e.g. `t1a2b3c_auth`. */
  db(name: string): string;
  /** A Redis key prefix of this namespace, e.g. `t1a2b3c:`. */
  redisPrefix: string;
  /** A JetStream stream name of this namespace, e.g. `t1a2b3c_RECORDS`. */
  stream(name: string): string;
  /** A subject of this namespace, e.g. `t1a2b3c.records.created`. */
  subject(name: string): string;
}

/** The namespace `ns` on the given servers (testNamespace makes one per test file). No vitest here. */
export function namespaceFor(
  ns: string,
  infra: { mongoUrl: string; natsUrl: string; redisUrl: string },
): TestNamespace {
  return {
    ns,
    mongoUrl: infra.mongoUrl,
    natsUrl: infra.natsUrl,
    redisUrl: infra.redisUrl,
    db: (name) => `${ns}_${name}`,
    redisPrefix: `${ns}:`,
    stream: (name) => `${ns}_${name}`,
    subject: (name) => `${ns}.${name}`,
  };
}
