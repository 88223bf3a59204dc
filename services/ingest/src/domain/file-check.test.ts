import { ERROR_CODES, workbookKindOfName } from '@nrad/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  claimedBomb,
  compoundFile,
  encryptedXlsx,
  lyingBomb,
  workbookOf,
  XLSX_SKELETON,
  zipArchive,
  zipBomb,
  zipParts,
} from '../../test/fixtures/hostile-files.ts';
import {
  checkUpload,
  MAX_ZIP_ENTRIES,
  readZipDirectory,
  UPLOAD_MESSAGES,
  type UploadLimits,
  UploadRefused,
} from './file-check.ts';

const MB = 1024 * 1024;
const limits: UploadLimits = { maxBytes: 25 * MB, maxUncompressedBytes: 100 * MB, maxCells: 2_000_000 };

/** The refusal `checkUpload` throws, or a failure when it accepts. */
async function refusal(
  name: string | undefined,
  bytes: Uint8Array,
  given: UploadLimits = limits,
): Promise<UploadRefused> {
  try {
    const kind = await checkUpload(name, bytes, given);
    throw new Error(`accepted as ${kind}`);
  } catch (err) {
    if (err instanceof UploadRefused) return err;
    throw err;
  }
}

const text = (s: string) => new TextEncoder().encode(s);
const xlsx = workbookOf([
  ['Incident Number', 'Suspect Name'],
  ['BPS-1', 'Ann Example'],
]);
const xls = workbookOf(
  [
    ['Incident Number', 'Suspect Name'],
    ['BPS-1', 'Ann Example'],
  ],
  { bookType: 'biff8' },
);

/** A BIFF record: type, length, data. */
const biffRecord = (type: number, data: number[]) => [
  type & 0xff,
  type >> 8,
  data.length & 0xff,
  data.length >> 8,
  ...data,
];
const BOF = biffRecord(0x0809, [0x00, 0x06, 0x05, 0x00, ...new Array<number>(12).fill(0)]);

describe('the name and the size', () => {
  it('says SPEC §5 "No File Selected" when there is no file', async () => {
    for (const name of [undefined, '', '   ']) {
      const err = await refusal(name, xlsx);
      expect(err.message).toBe('No File Selected: Please select an Excel file to upload.');
      expect(err.status).toBe(400);
      expect(err.code).toBe(ERROR_CODES.validation);
    }
  });

  it('says SPEC §5 "Invalid File Type" for a name not ending in .xlsx or .xls', async () => {
    for (const name of ['records.csv', 'records.xlsx.txt', 'records.xlsm', 'records.xlsb', 'xlsx', 'records']) {
      const err = await refusal(name, xlsx);
      expect(err.message).toBe('Invalid File Type: Please select an Excel file (.xlsx or .xls)');
      expect(err.status).toBe(415);
      expect(err.code).toBe(ERROR_CODES.unsupportedMediaType);
    }
  });

  it('tells the kind by the extension in any letter case', async () => {
    expect(workbookKindOfName('Records.XLSX')).toBe('xlsx');
    expect(workbookKindOfName(' records.Xls ')).toBe('xls');
    expect(workbookKindOfName('records.xlsx.csv')).toBeUndefined();
    expect(await checkUpload('Q1 Records.XLSX', xlsx, limits)).toBe('xlsx');
    expect(await checkUpload('old.XLS', xls, limits)).toBe('xls');
  });

  it('refuses an empty file', async () => {
    const err = await refusal('records.xlsx', new Uint8Array());
    expect(err.message).toBe('The file is empty.');
    expect(err.status).toBe(400);
  });

  it('refuses a file over the size limit with 413, naming the limit in MB', async () => {
    const big = new Uint8Array(MB + 1);
    big.set(xlsx);
    const err = await refusal('records.xlsx', big, {
      maxBytes: MB,
      maxUncompressedBytes: 100 * MB,
      maxCells: 2_000_000,
    });
    expect(err.message).toBe('The file is too large: the limit is 1 MB.');
    expect(err.status).toBe(413);
    expect(err.code).toBe(ERROR_CODES.payloadTooLarge);
    expect(
      (await refusal('records.xlsx', big, { maxBytes: MB / 2, maxUncompressedBytes: MB, maxCells: 2_000_000 })).message,
    ).toContain('the limit is 0.5 MB.');
    expect(UPLOAD_MESSAGES.tooLarge(25 * MB)).toBe('The file is too large: the limit is 25 MB.');
    expect(UPLOAD_MESSAGES.tooLarge(1.5 * MB)).toBe('The file is too large: the limit is 1.5 MB.');
    // Exactly at the limit is allowed.
    expect(
      await checkUpload('records.xlsx', xlsx, {
        maxBytes: xlsx.length,
        maxUncompressedBytes: 100 * MB,
        maxCells: 2_000_000,
      }),
    ).toBe('xlsx');
  });
});

describe('content that is not what the name says', () => {
  it('refuses a text file renamed .xlsx or .xls with 415', async () => {
    const csv = text('Incident Number,Suspect Name\nBPS-1,Ann\n');
    expect(await refusal('records.xlsx', csv)).toMatchObject({
      status: 415,
      message: 'The file is named .xlsx but its content is not an Excel .xlsx workbook.',
    });
    expect(await refusal('records.xls', csv)).toMatchObject({
      status: 415,
      message: 'The file is named .xls but its content is not an Excel .xls workbook.',
    });
  });

  it('says to rename an .xlsx workbook named .xls, and an .xls workbook named .xlsx', async () => {
    expect(await refusal('records.xls', xlsx)).toMatchObject({ status: 415, message: UPLOAD_MESSAGES.xlsxNamedXls });
    expect(await refusal('records.xlsx', xls)).toMatchObject({ status: 415, message: UPLOAD_MESSAGES.xlsNamedXlsx });
  });

  it('refuses a ZIP that is not a workbook, and an OLE2 file that is not one', async () => {
    const plainZip = zipArchive([{ name: 'notes.txt', data: text('hello') }]);
    expect((await refusal('records.xlsx', plainZip)).message).toBe(UPLOAD_MESSAGES.notKind('xlsx'));
    const onlyContentTypes = zipArchive([XLSX_SKELETON[0]!]);
    expect((await refusal('records.xlsx', onlyContentTypes)).message).toBe(UPLOAD_MESSAGES.notKind('xlsx'));
    const wordDocument = compoundFile({ WordDocument: new Uint8Array(600) });
    expect((await refusal('records.xls', wordDocument)).message).toBe(UPLOAD_MESSAGES.notKind('xls'));
    expect((await refusal('records.xlsx', wordDocument)).message).toBe(UPLOAD_MESSAGES.notKind('xlsx'));
  });

  it('accepts an .xlsx whose parts carry their sizes after the data (Apache POI, Go)', async () => {
    const rezipped = zipArchive(zipParts(xlsx).map((part) => ({ ...part, dataDescriptor: true })));
    expect(await checkUpload('records.xlsx', rezipped, limits)).toBe('xlsx');
  });
});

describe('password-protected workbooks', () => {
  const message = 'The workbook is password-protected: save it without a password and upload it again.';

  it('recognizes an .xlsx saved with a password (an OLE2 file with an encrypted package)', async () => {
    expect(await refusal('records.xlsx', encryptedXlsx())).toMatchObject({ status: 400, message });
    expect(await refusal('records.xls', encryptedXlsx())).toMatchObject({ status: 400, message });
  });

  it('recognizes an .xls whose workbook stream is encrypted (FILEPASS after BOF)', async () => {
    const filePass = biffRecord(0x002f, [0x00, 0x00]);
    const encrypted = compoundFile({ Workbook: new Uint8Array([...BOF, ...filePass, ...new Array(600).fill(0)]) });
    expect(await refusal('records.xls', encrypted)).toMatchObject({ status: 400, message });
    const plain = compoundFile({
      Workbook: new Uint8Array([
        ...BOF,
        ...biffRecord(0x0085, [0, 0, 0, 0, 0, 0, 1, 0, 0x41]),
        ...new Array(600).fill(0),
      ]),
    });
    expect(await checkUpload('records.xls', plain, limits)).toBe('xls');
  });

  it('recognizes a ZIP whose parts are encrypted', async () => {
    const zipped = zipArchive([...XLSX_SKELETON.map((p) => ({ ...p, encrypted: true }))]);
    expect((await refusal('records.xlsx', zipped)).message).toBe(message);
  });
});

describe('damaged files', () => {
  const damaged = 'The file is damaged or not a valid Excel workbook.';

  it('refuses a truncated .xlsx (no end of central directory)', async () => {
    for (const length of [4, 100, Math.floor(xlsx.length / 2), xlsx.length - 10]) {
      expect(await refusal('records.xlsx', xlsx.slice(0, length))).toMatchObject({ status: 400, message: damaged });
    }
  });

  it('refuses a ZIP whose directory points outside the file or at garbage', async () => {
    const broken = xlsx.slice();
    const view = new DataView(broken.buffer);
    const eocd = broken.length - 22;
    expect(view.getUint32(eocd, true)).toBe(0x06054b50);
    view.setUint32(eocd + 16, broken.length - 30, true); // directory offset into the end record itself
    expect((await refusal('records.xlsx', broken)).message).toBe(damaged);

    const garbled = xlsx.slice();
    const cdOffset = new DataView(garbled.buffer).getUint32(eocd + 16, true);
    garbled.fill(0x41, cdOffset, cdOffset + 46);
    expect((await refusal('records.xlsx', garbled)).message).toBe(damaged);
  });

  it('refuses a damaged OLE2 file', async () => {
    const header = new Uint8Array(600);
    header.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    expect((await refusal('records.xls', header)).message).toBe(damaged);
    expect((await refusal('records.xls', xls.slice(0, 700))).message).toBe(damaged);
  });

  it('refuses a part whose local header disagrees with the directory', async () => {
    const parts = zipParts(xlsx);
    const honest = zipArchive(parts);
    const lying = honest.slice();
    // The first local header's uncompressed size (offset 22) no longer matches its directory entry.
    new DataView(lying.buffer).setUint32(22, 5, true);
    expect(await checkUpload('records.xlsx', honest, limits)).toBe('xlsx');
    expect((await refusal('records.xlsx', lying)).message).toBe(damaged);
  });

  it('refuses ZIP64 sizes and fields, which no workbook within the limits needs', async () => {
    const marked = zipArchive([
      ...XLSX_SKELETON,
      { name: 'xl/worksheets/sheet1.xml', data: text('<worksheet/>'), declaredSize: 0xffffffff },
    ]);
    expect((await refusal('records.xlsx', marked)).message).toBe(damaged);
    const zip64Extra = new Uint8Array([0x01, 0x00, 0x10, 0x00, ...new Array(16).fill(0)]);
    const withField = zipArchive([
      ...XLSX_SKELETON,
      { name: 'xl/styles.xml', data: text('<s/>'), centralExtra: zip64Extra },
    ]);
    expect((await refusal('records.xlsx', withField)).message).toBe(damaged);
  });
});

describe('zip bombs', () => {
  let honestBomb: Uint8Array;
  let liar: Uint8Array;
  beforeAll(async () => {
    honestBomb = await zipBomb(200);
    liar = await lyingBomb(64);
  });

  it('refuses a small file whose directory says it unpacks beyond the limit, with 413 naming the limit', async () => {
    expect(honestBomb.length).toBeLessThan(MB);
    const err = await refusal('records.xlsx', honestBomb);
    expect(err.status).toBe(413);
    expect(err.code).toBe(ERROR_CODES.payloadTooLarge);
    expect(err.message).toBe(
      'The workbook is too large once unpacked (more than 100 MB); split it into smaller files.',
    );
  });

  it('refuses a directory claiming gigabytes without unpacking anything', async () => {
    const claimed = claimedBomb(0xfffffff0);
    expect(claimed.length).toBeLessThan(1000);
    expect((await refusal('records.xlsx', claimed)).status).toBe(413);
  });

  it('counts the declared sizes of all parts against the limit, up to and including it', async () => {
    const parts = zipParts(xlsx);
    const total = parts.reduce((sum, p) => sum + (p.data?.length ?? 0), 0);
    const rezipped = zipArchive(parts);
    expect(readZipDirectory(rezipped, total).reduce((sum, e) => sum + e.uncompressedSize, 0)).toBe(total);
    expect(
      await checkUpload('records.xlsx', rezipped, { maxBytes: MB, maxUncompressedBytes: total, maxCells: 2_000_000 }),
    ).toBe('xlsx');
    expect(
      (await refusal('records.xlsx', rezipped, { maxBytes: MB, maxUncompressedBytes: total - 1, maxCells: 2_000_000 }))
        .status,
    ).toBe(413);
  });

  it('refuses a part that unpacks to more than it declares (stopping at the declared size)', async () => {
    // Declares 1000 bytes, holds 64 MB of zeros, with a data descriptor (local sizes 0).
    expect(await refusal('records.xlsx', liar)).toMatchObject({
      status: 400,
      message: 'The file is damaged or not a valid Excel workbook.',
    });
  });

  it(`refuses more than ${MAX_ZIP_ENTRIES} parts`, async () => {
    const parts = Array.from({ length: MAX_ZIP_ENTRIES + 1 }, (_, i) => ({ name: `p/${i}`, stored: true }));
    const many = zipArchive([...XLSX_SKELETON, ...parts]);
    expect(await refusal('records.xlsx', many)).toMatchObject({
      status: 400,
      message: 'The file is not a valid Excel workbook: it holds more than 10,000 parts.',
    });
    const claimed = zipArchive([...XLSX_SKELETON], { entryCount: 60_000 });
    expect((await refusal('records.xlsx', claimed)).message).toBe(UPLOAD_MESSAGES.tooManyParts);
  });
});

describe('UploadRefused', () => {
  it('is an Error with a stable code and the status it is answered with', async () => {
    const err = new UploadRefused(ERROR_CODES.payloadTooLarge, 'too big');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('UploadRefused');
    expect(err.status).toBe(413);
    expect(new UploadRefused(ERROR_CODES.unsupportedMediaType, 'x').status).toBe(415);
    expect(new UploadRefused(ERROR_CODES.validation, 'x').status).toBe(400);
  });
});
