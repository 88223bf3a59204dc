import { ObjectIdSchema } from '@nrad/contracts';
import { validationError } from '@nrad/service-kit';

/** Where a page ends: the sort time and id of its last item (keyset paging, stable under inserts). */
export interface Cursor {
  time: Date;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.time.getTime()}.${c.id}`).toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  const [ms, id] = Buffer.from(text, 'base64url').toString().split('.');
  const time = new Date(Number(ms));
  if (!ms || !/^\d{1,15}$/.test(ms) || Number.isNaN(time.getTime()) || !id || !ObjectIdSchema.safeParse(id).success) {
    throw validationError('cursor must be the value of a previous X-Next-Cursor header');
  }
  return { time, id };
}
