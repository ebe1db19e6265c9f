import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import { Upload, WriteStream, type FileUpload } from 'graphql-upload-ts';
import { AppError } from '../src/errors.ts';

export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, Upload>;
}

/** Form fields other than files are small; more than this many is abuse, not a client. */
export const MAX_FIELDS = 20;
export const MAX_FIELD_BYTES = 64 * 1024;

/**
 * Reads a multipart form without holding the file in memory: each file part streams into a
 * temporary file (fs-capacitor, as graphql-upload-ts does for GraphQL multipart requests) and is
 * handed to the resolver as the same `Upload` object, so both fronts share one upload path.
 * Temporary files are removed when the response ends.
 */
export function readMultipartForm(req: IncomingMessage, res: ServerResponse, options: { maxFileBytes: number; fileFields: string[] }): Promise<MultipartForm> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    return Promise.reject(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be multipart/form-data'));
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > options.maxFileBytes + MAX_FIELDS * MAX_FIELD_BYTES) {
    return Promise.reject(tooLarge(options.maxFileBytes));
  }
  return new Promise((resolve, reject) => {
    const form: MultipartForm = { fields: {}, files: {} };
    const capacitors: WriteStream[] = [];
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      for (const capacitor of capacitors) capacitor.destroy(error);
      reject(error);
    };
    res.once('close', () => {
      for (const capacitor of capacitors) capacitor.release();
    });

    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // File names in Content-Disposition are UTF-8 as browsers and curl send them (busboy's default is latin1).
        defParamCharset: 'utf8',
        // busboy reports the limit when a file *reaches* fileSize; a file of exactly the limit is allowed.
        limits: { fileSize: options.maxFileBytes + 1, files: options.fileFields.length, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES },
      });
    } catch {
      reject(new AppError('BAD_USER_INPUT', 'Malformed multipart body: missing boundary'));
      return;
    }
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(AppError.badInput(name, `is longer than ${MAX_FIELD_BYTES} bytes`));
      form.fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (!options.fileFields.includes(name) || form.files[name]) {
        stream.resume();
        return fail(new AppError('BAD_USER_INPUT', `Unexpected file field: ${name}`, { field: name }));
      }
      const capacitor = new WriteStream();
      // fail() destroys the capacitor with the error it rejects with; without a listener that
      // 'error' event would be an uncaught exception and take the process down.
      capacitor.on('error', () => {});
      capacitors.push(capacitor);
      const upload = new Upload();
      const file: FileUpload = {
        filename: info.filename ?? 'upload',
        fieldName: name,
        mimetype: info.mimeType,
        encoding: info.encoding,
        capacitor,
        createReadStream: (readOptions) => capacitor.createReadStream(readOptions),
      };
      upload.resolve(file);
      form.files[name] = upload;
      stream.on('limit', () => fail(tooLarge(options.maxFileBytes)));
      stream.on('error', () => fail(new AppError('BAD_USER_INPUT', 'Malformed multipart body: the file ended before it was complete')));
      stream.pipe(capacitor);
    });
    parser.on('filesLimit', () => fail(new AppError('BAD_USER_INPUT', `Only ${options.fileFields.join(', ')} may carry a file`)));
    parser.on('fieldsLimit', () => fail(new AppError('BAD_USER_INPUT', `At most ${MAX_FIELDS} form fields are accepted`)));
    parser.on('error', () => fail(new AppError('BAD_USER_INPUT', 'Malformed multipart body')));
    parser.on('close', () => {
      if (!failed) resolve(form);
    });
    req.on('aborted', () => fail(new AppError('BAD_USER_INPUT', 'The request was aborted by the client')));
    req.pipe(parser);
  });
}

function tooLarge(limit: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `File exceeds the upload limit of ${limit} bytes`);
}
