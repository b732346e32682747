/**
 * A bare node:http server that answers every request with one fixed answer (status, headers,
 * body read from the JSON file given as argument), after reading the request body. The
 * baseline of bench/quote-oop.ts, run in a process of its own. Prints `port <n>` when listening.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const fixed = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { status: number; headers: Record<string, string>; body: string };
const body = Buffer.from(fixed.body, 'base64');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(fixed.status, fixed.headers).end(body));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
