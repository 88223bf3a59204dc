import { ERROR_CODES } from '@nrad/contracts';
import { AppError } from '@nrad/service-kit';
import busboy from 'busboy';
import type Koa from 'koa';

/** The one file of a multipart request (field `file`), read whole up to `maxBytes`. */
export interface UploadedFile {
  name: string | undefined;
  bytes: Uint8Array;
}

const MB = 1024 * 1024;

/**
 * Reads a `multipart/form-data` body holding one file in the field `file`. Refuses (4xx) a body of
 * another type, more than one file, and a file over `maxBytes` (reading stops there). Resolves
 * undefined when the form has no file.
 */
export function readSingleFile(ctx: Koa.Context, maxBytes: number): Promise<UploadedFile | undefined> {
  if (!ctx.is('multipart/form-data')) {
    throw new AppError(ERROR_CODES.unsupportedMediaType, 'Send the file as multipart/form-data in the field "file"');
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        limits: { files: 1, fileSize: maxBytes, fields: 20, parts: 25, fieldSize: 64 * 1024 },
      });
    } catch {
      reject(new AppError(ERROR_CODES.validation, 'The upload is not a valid multipart form'));
      return;
    }
    let file: UploadedFile | undefined;
    let failure: Error | undefined;
    const fail = (err: Error) => {
      failure ??= err;
    };
    parser.on('file', (field, stream, info) => {
      if (field !== 'file') {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () =>
        fail(new AppError(ERROR_CODES.payloadTooLarge, `The file is larger than ${Math.round(maxBytes / MB)} MB`)),
      );
      stream.on('end', () => {
        file = { name: info.filename, bytes: Buffer.concat(chunks) };
      });
    });
    parser.on('filesLimit', () => fail(new AppError(ERROR_CODES.validation, 'Upload one file at a time')));
    parser.on('partsLimit', () => fail(new AppError(ERROR_CODES.validation, 'The upload has too many parts')));
    parser.on('error', () => fail(new AppError(ERROR_CODES.validation, 'The upload is not a valid multipart form')));
    parser.on('close', () => (failure ? reject(failure) : resolve(file)));
    ctx.req.pipe(parser);
  });
}
