import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InfraUrls } from '../stack.ts';

/**
 * Whether a Docker engine answers. Cheap when there is obviously none (no socket, no DOCKER_HOST),
 * so machines without Docker do not wait for testcontainers to give up.
 */
export async function dockerAnswers(): Promise<boolean> {
  if (process.env.NRAD_TEST_NO_DOCKER === '1') return false;
  const sockets = ['/var/run/docker.sock', path.join(os.homedir(), '.docker', 'run', 'docker.sock')];
  if (!process.env.DOCKER_HOST && !sockets.some((s) => existsSync(s))) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** MongoDB 7, NATS with JetStream and Redis 7 in containers, as docker-compose.yml runs them. */
export async function startContainers(): Promise<{ urls: InfraUrls; stop(): Promise<void> }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const [mongo, nats, redis] = await Promise.all([
    new GenericContainer('mongo:7')
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start(),
    new GenericContainer('nats:2.10')
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start(),
    new GenericContainer('redis:7')
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
      .start(),
  ]);
  const host = (c: { getHost(): string; getMappedPort(p: number): number }, p: number) =>
    `${c.getHost()}:${c.getMappedPort(p)}`;
  return {
    urls: {
      mongoUrl: `mongodb://${host(mongo, 27017)}/`,
      natsUrl: `nats://${host(nats, 4222)}`,
      redisUrl: `redis://${host(redis, 6379)}`,
    },
    async stop() {
      await Promise.all([mongo.stop(), nats.stop(), redis.stop()]);
    },
  };
}
