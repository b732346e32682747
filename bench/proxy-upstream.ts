/**
 * The upstream of bench/proxy-oop.ts, in a process of its own: reads the request body, then
 * answers a small JSON body (/small), 1 MB (/1mb) or 50 MB streamed (/big50). Prints `port <n>`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';

const MB = 1024 * 1024;
export const small = Buffer.from(JSON.stringify({ ok: true, items: [1, 2, 3] }));
export const oneMb = Buffer.alloc(MB, 7);

/** The upstream's answers (bench/proxy.ts serves the same handler in its own process). */
export function upstreamHandler(req: IncomingMessage, res: ServerResponse): void {
  let size = 0;
  req.on('data', (c: Buffer) => (size += c.length));
  req.on('end', () => {
    if (req.url === '/big50') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let sent = 0;
      const more = () => {
        while (sent < 50) {
          sent++;
          if (!res.write(oneMb)) return void res.once('drain', more);
        }
        res.end();
      };
      return more();
    }
    const body = req.url === '/1mb' ? oneMb : small;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length), 'x-received': String(size) }).end(body);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const server = createServer(upstreamHandler);
  server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as { port: number }).port}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
