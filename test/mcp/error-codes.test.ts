/**
 * The JSON-RPC endpoint's error codes are the one table's (src/errors.ts), and docs/mcp.md prints
 * that table as it is: a row per code, the same HTTP status, JSON-RPC code and answer of a tool
 * that fails with it. Reads files only: the wire is pinned by protocol.test.ts, plain-json.test.ts
 * and tools.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HTTP_STATUS_BY_CODE, JSON_RPC_BY_CODE, type ErrorCode } from '../../src/errors.ts';

const HEADER = '| code | REST status | JSON-RPC error | a tool failing with it |';
const IN_TOOL = { 'result, `isError: true`': 'result', 'JSON-RPC error': 'error' } as const;

/** The rows of docs/mcp.md's table of codes, as the table in src/errors.ts would state them. */
function documentedRows(): Record<string, { http: number; jsonRpc: number; inTool: string }> {
  const lines = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8').split('\n');
  const start = lines.indexOf(HEADER);
  expect(start, `docs/mcp.md has the table headed ${HEADER}`).toBeGreaterThan(-1);
  const rows: Record<string, { http: number; jsonRpc: number; inTool: string }> = {};
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [code, http, jsonRpc, inTool] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    rows[code!.replace(/`/g, '')] = { http: Number(http), jsonRpc: Number(jsonRpc), inTool: IN_TOOL[inTool as keyof typeof IN_TOOL] ?? `unknown: ${inTool}` };
  }
  return rows;
}

describe('JSON-RPC error codes', () => {
  it('docs/mcp.md prints the one table of src/errors.ts: every code, its HTTP status, JSON-RPC code and answer inside a tool', () => {
    const table = Object.fromEntries(
      (Object.keys(HTTP_STATUS_BY_CODE) as ErrorCode[]).map((code) => [
        code,
        { http: HTTP_STATUS_BY_CODE[code], jsonRpc: JSON_RPC_BY_CODE[code].code, inTool: JSON_RPC_BY_CODE[code].inTool },
      ]),
    );
    expect(documentedRows()).toEqual(table);
  });

  it('JSON-RPC codes are standard ones or in the server-error range, and only refusals and internal failures interrupt a tool', () => {
    for (const [code, answer] of Object.entries(JSON_RPC_BY_CODE)) {
      const standard = [-32700, -32600, -32601, -32602, -32603].includes(answer.code);
      expect(standard || (answer.code <= -32000 && answer.code >= -32099), code).toBe(true);
    }
    const interrupting = Object.entries(JSON_RPC_BY_CODE).filter(([, answer]) => answer.inTool === 'error');
    expect(interrupting.map(([code]) => code).sort()).toEqual(['FORBIDDEN', 'INTERNAL_SERVER_ERROR', 'UNAUTHENTICATED']);
  });
});
