/**
 * Vitest global setup: gives this run its own file for the counts of REST responses checked
 * against the OpenAPI document (validate-rest-responses.ts), and prints their total after it.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export default function setup(): () => void {
  // One file per run (the workers inherit the variable), so another run on this checkout cannot add to the count.
  process.env.OPENAPI_COUNTS_FILE = fileURLToPath(new URL(`../../.tmp/openapi-responses-${process.pid}-${Date.now()}.jsonl`, import.meta.url));
  const COUNTS_FILE = process.env.OPENAPI_COUNTS_FILE;
  return () => {
    if (!fs.existsSync(COUNTS_FILE)) return;
    const text = fs.readFileSync(COUNTS_FILE, 'utf8');
    fs.rmSync(COUNTS_FILE, { force: true });
    const entries = text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { validated: number; streams: number });
    const validated = entries.reduce((sum, entry) => sum + entry.validated, 0);
    const streams = entries.reduce((sum, entry) => sum + entry.streams, 0);
    console.log(
      `OpenAPI: ${validated} REST responses checked against openapi.json in ${entries.length} test files (${streams} of them event streams: status and content type only)`,
    );
  };
}
