export * from './ferretdb.ts';
export * from './nats.ts';
export * from './paths.ts';
export * from './ports.ts';
export * from './process.ts';
export * from './redis.ts';
export * from './stack.ts';
export * from './system-packages.ts';
