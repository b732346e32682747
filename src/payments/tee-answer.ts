/**
 * An upstream answer is streamed to the buyer as it arrives, and a copy is kept for replays of
 * the same receipt (the upstream is never called twice for one payment) as long as it stays
 * under a bound: a larger answer is streamed once and not stored.
 */
import { PassThrough, type Readable } from 'node:stream';

export interface TeedAnswer {
  /** What to send to the buyer. */
  stream: Readable;
  /** The whole answer once it ended, or null when it outgrew the bound or failed midway. */
  stored: Promise<Buffer | null>;
}

export function teeAnswer(body: Readable, maxBytes: number): TeedAnswer {
  const stream = new PassThrough();
  // An upstream that fails before the server has attached the buyer's side (the handler still
  // awaits its clean-up) destroys this stream with the error; unheard, that error would end
  // the process. The server's pipeline still sees it (it cuts the buyer's connection).
  stream.on('error', () => undefined);
  // An answer that already failed (the upstream reset while the handler awaited its ledger
  // mark) will emit neither 'end' nor 'error' again: cut the buyer's side now, keep nothing.
  if (body.errored || (body.destroyed && !body.readableEnded)) {
    stream.destroy(body.errored ?? new Error('the upstream answer broke off before it was sent'));
    return { stream, stored: Promise.resolve(null) };
  }
  let chunks: Buffer[] | null = [];
  let size = 0;
  const stored = new Promise<Buffer | null>((resolve) => {
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (chunks && size <= maxBytes) chunks.push(chunk);
      else {
        chunks = null;
        if (stream.destroyed) body.destroy();
      }
    });
    body.once('end', () => resolve(chunks ? Buffer.concat(chunks) : null));
    body.once('error', (err) => {
      resolve(null);
      stream.destroy(err);
    });
    // The buyer went away (a dropped connection): the answer is still read to its end and kept,
    // so the retry with the same receipt gets it; only an answer too large to keep is abandoned.
    stream.once('close', () => {
      if (body.readableEnded) return;
      body.unpipe(stream);
      if (!chunks) {
        body.destroy();
        resolve(null);
      } else body.resume();
    });
  });
  body.pipe(stream);
  return { stream, stored };
}
