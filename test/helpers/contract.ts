/**
 * Checks real answers against openapi.yaml: what SDK users generate from the contract must be
 * what the service sends. Loaded once per test file.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadContract, type Contract } from '../../src/http/contract.ts';

let contract: Promise<Contract> | null = null;

/** The contract as the server loads it (routing and request validation included). */
export const testContract = (): Promise<Contract> => (contract ??= loadContract(fileURLToPath(new URL('../../openapi.yaml', import.meta.url))));

export async function assertMatchesContract(operationId: string, status: number, body: unknown): Promise<void> {
  const { api } = await testContract();
  const result = api.validateResponse(body, operationId, status);
  assert.ok(result.valid, `${operationId} ${status} does not match openapi.yaml: ${JSON.stringify(result.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}
