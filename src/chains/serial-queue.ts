/**
 * Runs async jobs one at a time. A signer's transactions are built and sent through one queue
 * so two concurrent payouts never pick the same nonce; only the send is serialized, waiting
 * for confirmation happens outside.
 */
export type SerialQueue = <T>(job: () => Promise<T>) => Promise<T>;

export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const run = tail.then(job, job);
    tail = run.catch(() => undefined);
    return run;
  };
}
