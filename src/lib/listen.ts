/**
 * listen(server, port, host): resolves with the bound address once listening, or rejects with
 * the bind error (a taken port, a bad host) instead of leaving it to an 'error' event nobody
 * awaits. Shared by the API server and the operator listener.
 */
import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
