/**
 * Just enough RFC 6455 for JSON-RPC subscriptions: web3.js confirms transactions through
 * `signatureSubscribe` on a WebSocket and only then polls. Text frames (with fragmentation),
 * ping/pong and close; no extensions. Written here rather than adding a dependency for the
 * devnet's one subscription.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const MAX_MESSAGE = 4 * 1024 * 1024;

export interface WebSocketConnection {
  send(text: string): void;
  close(): void;
  onMessage(listener: (text: string) => void): void;
  onClose(listener: () => void): void;
}

function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  let header: Buffer;
  if (len < 126) {
    header = Buffer.from([0x80 | opcode, len]);
  } else if (len < 65536) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(len, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([header, payload]);
}

/** Completes the upgrade handshake; null (socket destroyed) when the request is not a WebSocket upgrade. */
export function acceptWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer): WebSocketConnection | null {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || String(req.headers.upgrade).toLowerCase() !== 'websocket') {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    return null;
  }
  const accept = createHash('sha1').update(key + GUID).digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);

  const messageListeners: ((text: string) => void)[] = [];
  const closeListeners: (() => void)[] = [];
  let buffer: Buffer = head.length > 0 ? Buffer.from(head) : Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let closed = false;

  const finish = () => {
    if (closed) return;
    closed = true;
    for (const l of closeListeners) l();
  };
  // Always close with 1000 (normal): web3.js's client (rpc-websockets) reconnects forever on
  // any other code, which would keep a finished test process alive after the devnet stops.
  const close = () => {
    if (!closed && socket.writable) socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
    finish();
    setTimeout(() => socket.destroy(), 1_000).unref();
  };

  const parse = () => {
    while (buffer.length >= 2) {
      const fin = (buffer[0] & 0x80) !== 0;
      const opcode = buffer[0] & 0x0f;
      const masked = (buffer[1] & 0x80) !== 0;
      let len = buffer[1] & 0x7f;
      let offset = 2;
      if (len === 126) {
        if (buffer.length < 4) return;
        len = buffer.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (buffer.length < 10) return;
        const big = buffer.readBigUInt64BE(2);
        if (big > BigInt(MAX_MESSAGE)) return close();
        len = Number(big);
        offset = 10;
      }
      const maskOffset = offset;
      if (masked) offset += 4;
      if (buffer.length < offset + len) return;
      const payload = Buffer.from(buffer.subarray(offset, offset + len));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= buffer[maskOffset + (i % 4)];
      buffer = buffer.subarray(offset + len);

      if (opcode === 0x8) return close();
      if (opcode === 0x9) {
        socket.write(frame(0xa, payload));
        continue;
      }
      if (opcode === 0xa) continue;
      if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
        fragments.push(payload);
        if (fragments.reduce((n, b) => n + b.length, 0) > MAX_MESSAGE) return close();
        if (fin) {
          const text = Buffer.concat(fragments).toString('utf8');
          fragments = [];
          for (const l of messageListeners) l(text);
        }
        continue;
      }
      return close();
    }
  };

  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    parse();
  });
  socket.on('close', finish);
  socket.on('error', finish);
  queueMicrotask(parse);

  return {
    send(text) {
      if (!closed && socket.writable) socket.write(frame(0x1, Buffer.from(text, 'utf8')));
    },
    close,
    onMessage: (l) => void messageListeners.push(l),
    onClose: (l) => void closeListeners.push(l),
  };
}
