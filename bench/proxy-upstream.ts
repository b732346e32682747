/**
 * The upstream of bench/proxy-oop.ts, in a process of its own: reads the request body, then
 * answers a small JSON body (/small), 1 MB (/1mb) or 50 MB streamed (/big50). Prints `port <n>`.
 */
import { createServer } from 'node:http';

const MB = 1024 * 1024;
const small = Buffer.from(JSON.stringify({ ok: true, items: [1, 2, 3] }));
const oneMb = Buffer.alloc(MB, 7);

const server = createServer((req, res) => {
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
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
