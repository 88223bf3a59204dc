import { describe, expect, it } from 'vitest';
import { workbookOf } from '../../test/fixtures/hostile-files.ts';
import { TEMPLATE_COLUMNS } from '../domain/columns.ts';
import { type ParsedUpload, parseUpload } from './parse.ts';

const limits = { maxRows: 1_000, maxCellChars: 10_000, maxCells: 2_000_000, maxUncompressedBytes: 250e6 };
const budget = { memoryMb: 128, timeoutMs: 60_000 };
const header = TEMPLATE_COLUMNS.filter((c) => c.required).map((c) => c.title);
const row = ['BPS-2025-0001', 'Ann Example', '1980-05-01', '2025-01-15', 10, 'Police Investigation', 'No'];

describe('the parse thread', () => {
  it('says which reader read the file: the stream reader, or SheetJS for a file it leaves to it', async () => {
    const cases = [
      [workbookOf([header, row]), 'stream'],
      [workbookOf([header, row, [{ t: 'n', v: 2, f: '1+1' }]]), 'sheetjs'], // a formula: SheetJS reads it
    ] as const;
    for (const [bytes, reader] of cases) {
      const outcome = await parseUpload({ bytes, kind: 'xlsx', limits }, budget);
      expect(outcome).not.toHaveProperty('refused');
      const parsed = outcome as ParsedUpload;
      try {
        expect(parsed.reader).toBe(reader);
        expect(parsed.total).toBe(reader === 'stream' ? 1 : 2);
        const [first] = await parsed.take(10);
        expect(first?.body.incidentNumber).toBe('BPS-2025-0001');
      } finally {
        await parsed.close();
      }
    }
  });
});
