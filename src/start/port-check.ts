/**
 * `npm start` with the port taken must say so at once, in one line, before the devnet's chains
 * boot (seconds) and before anything is written: a trial listen on the service's and the
 * operator listener's ports, closed again right away. The real listen comes later, so another
 * process can still take the port in between; that rare case ends as before (`start failed`).
 */
import { createServer } from 'node:net';

export interface TakenPort {
  port: number;
  host: string;
  /** Which variable sets it, for the line the user reads. */
  variable: 'PORT' | 'METRICS_PORT';
  code: string;
}

function tryListen(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** The first of the ports that cannot be listened on (port 0 is any free port: never taken). */
export async function findTakenPort(ports: { host: string; port: number; variable: TakenPort['variable'] }[]): Promise<TakenPort | null> {
  for (const p of ports) {
    if (p.port === 0) continue;
    const code = await tryListen(p.host, p.port);
    if (code) return { ...p, code };
  }
  return null;
}

export function takenPortLine(t: TakenPort): string {
  const why = t.code === 'EADDRINUSE' ? 'is in use by another process (another `npm start`?)' : t.code === 'EACCES' ? 'cannot be used by this user' : `cannot be listened on (${t.code})`;
  return `paycall: port ${t.port} on ${t.host} ${why}; stop that process, or choose another port: ${t.variable}=${t.port + 1} npm start`;
}
