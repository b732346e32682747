/**
 * Reads the document of a built-in tool call: the raw request body, or the part named
 * `file` of a multipart/form-data body (parsed as a stream with busboy). The byte limit is
 * enforced while reading: the request is abandoned as soon as it is crossed, so a client
 * sending gigabytes costs us at most maxBytes of memory.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { AppError } from '../http/app-error.ts';
import { readChunks, tooLarge } from '../http/read-body.ts';

export interface Upload {
  /** Owns its whole ArrayBuffer, so the tool pool can transfer it to a worker without a copy. */
  bytes: Buffer;
  contentType: string;
  filename: string | null;
}


/** One allocation outside Node's shared Buffer pool, so the result can be transferred. */
const concat = (chunks: Buffer[], total: number): Buffer => {
  const out = Buffer.allocUnsafeSlow(total);
  let offset = 0;
  for (const c of chunks) {
    c.copy(out, offset);
    offset += c.length;
  }
  return out;
};

/**
 * Stops reading. The request stream is paused and detached rather than drained: the
 * caller answers 413 and closes the connection, and the client sees the answer before it
 * has finished sending.
 */
const abandon = (req: IncomingMessage) => {
  req.unpipe();
  req.pause();
};

async function readRaw(req: IncomingMessage, maxBytes: number, contentType: string): Promise<Upload> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    abandon(req);
    throw tooLarge(maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  // readChunks listens to every event of the request until it settles, and pauses and
  // detaches it on a refusal (the 413 is still answered), like the seller-call spool.
  await readChunks(req, (chunk) => {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  });
  return { bytes: concat(chunks, total), contentType, filename: null };
}

/** busboy's words for a body that stops early, in the client's terms. */
const multipartProblem = (error: Error): string =>
  /unexpected end of form/i.test(error.message)
    ? 'the multipart/form-data body is truncated: it ended before the closing boundary of its last part'
    : `malformed multipart/form-data: ${error.message}`;

/**
 * Every stream here gets an 'error' listener: the request, the parser and each part (busboy
 * emits "Unexpected end of form" on the part being read, and an unheard 'error' event
 * would end the process). The promise settles exactly once, on the first of: the file is
 * complete and the form closed, a limit is crossed, any stream fails, or the client goes away.
 */
function readMultipart(req: IncomingMessage, maxBytes: number): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 10, fileSize: maxBytes, fields: 20, fieldSize: 64 * 1024, parts: 30 } });
    } catch (error) {
      reject(new AppError('invalid_input', 400, `malformed multipart/form-data: ${(error as Error).message}`, { hint: 'send Content-Type: multipart/form-data; boundary=... with the document in a part named "file"' }));
      return;
    }
    let settled = false;
    let file: Upload | null = null;
    let fileDone: Promise<void> | null = null;
    const parts = new Set<NodeJS.ReadableStream>();
    const fail = (error: AppError) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      abandon(req);
      // Parts still open would wait for bytes that never come; let them go quietly.
      for (const part of parts) part.resume();
      reject(error);
    };
    // After a failure the parser and parts may still report; those reports change nothing.
    parser.on('error', (error: Error) => fail(new AppError('invalid_input', 400, multipartProblem(error))));
    req.on('error', (error: Error) => fail(new AppError('invalid_input', 400, `the request body could not be read: ${error.message}`)));
    req.on('close', () => {
      if (!req.complete) fail(new AppError('invalid_input', 400, 'the client closed the connection before the upload was complete'));
    });
    parser.on('file', (name, stream, info) => {
      parts.add(stream);
      stream.on('error', (error: Error) => fail(new AppError('invalid_input', 400, multipartProblem(error))));
      stream.once('close', () => parts.delete(stream));
      if (name !== 'file' || file || fileDone) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let total = 0;
      fileDone = new Promise<void>((done) => {
        stream.on('data', (chunk: Buffer) => {
          total += chunk.length;
          chunks.push(chunk);
        });
        // busboy stops at fileSize and flags the stream: the part is over the limit.
        stream.on('limit', () => fail(tooLarge(maxBytes)));
        stream.on('end', () => {
          if (!settled) file = { bytes: concat(chunks, total), contentType: info.mimeType || 'application/octet-stream', filename: info.filename ?? null };
          done();
        });
        // A part that fails never ends: settle the wait here (fail() has answered already).
        stream.on('error', () => done());
      });
    });
    parser.on('close', () => {
      void (fileDone ?? Promise.resolve()).then(() => {
        if (settled) return;
        settled = true;
        if (!file) reject(new AppError('invalid_input', 400, 'the multipart body has no part named "file"', { hint: 'send the document in a form part named "file"' }));
        else if (file.bytes.length === 0) reject(new AppError('invalid_input', 400, 'the "file" part is empty'));
        else resolve(file);
      });
    });
    // The client left before the handler got here (a wrapper awaited something): no event is coming.
    if (req.destroyed && !req.complete) {
      fail(new AppError('invalid_input', 400, 'the client closed the connection before the upload was complete'));
      return;
    }
    // A multipart body can never be smaller than its file; reject clearly oversized ones at once.
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes + 64 * 1024) {
      fail(tooLarge(maxBytes));
      return;
    }
    req.pipe(parser);
  });
}

export async function readUpload(req: IncomingMessage, opts: { maxBytes: number }): Promise<Upload> {
  const contentType = (req.headers['content-type'] ?? 'application/octet-stream').toString();
  const upload = /^multipart\/form-data\b/i.test(contentType) ? await readMultipart(req, opts.maxBytes) : await readRaw(req, opts.maxBytes, contentType.split(';')[0].trim());
  if (upload.bytes.length === 0) throw new AppError('invalid_input', 400, 'the request body is empty: send the document as the body or as the multipart part "file"');
  return upload;
}
