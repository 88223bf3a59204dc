import type { RefObject } from 'react';
import { ApiError } from './api.ts';

/** How often a screen reads a job it follows (an upload's, a report's). */
export const JOB_POLL_MS = 500;
/** Failed reads in a row (no answer, a server error) a screen bears before it gives up on a job. */
export const JOB_POLL_RETRIES = 3;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A read worth trying again: no answer, or a server error (not a refusal such as 404). */
const transient = (error: unknown) => !(error instanceof ApiError) || error.status >= 500;

/**
 * Reads a job every JOB_POLL_MS until its `state` is completed or failed, handing each read to
 * `onRead`, and resolves the last one. A read that failed for a passing reason is tried again (up
 * to JOB_POLL_RETRIES in a row); a refusal is thrown. Resolves undefined once `live` is false (the
 * screen was left: the job goes on, the screen stops reading it).
 */
export async function followJob<Job extends { state: string }>(
  read: () => Promise<Job>,
  live: RefObject<boolean>,
  onRead: (job: Job) => void,
): Promise<Job | undefined> {
  for (let failures = 0; ; ) {
    let job: Job;
    try {
      job = await read();
      failures = 0;
    } catch (error) {
      if (!transient(error) || ++failures > JOB_POLL_RETRIES) throw error;
      await wait(JOB_POLL_MS);
      continue;
    }
    if (!live.current) return undefined;
    onRead(job);
    if (job.state === 'completed' || job.state === 'failed') return job;
    await wait(JOB_POLL_MS);
    if (!live.current) return undefined;
  }
}
