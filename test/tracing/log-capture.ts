/**
 * The JSON lines a running service's loggers write: the destination stream of its root logger
 * (shared by every child logger: requests, components, jobs) is tapped, and the lines are
 * recorded instead of printed.
 */
import { pino } from 'pino';
import type { Logger } from '../../src/log.ts';

export type LogLine = Record<string, unknown> & { msg?: string; requestId?: string; trace_id?: string; span_id?: string };

export function captureLogs(log: Logger): { lines: LogLine[]; restore(): void } {
  const lines: LogLine[] = [];
  const stream = (log as unknown as Record<symbol, { write(chunk: string): boolean }>)[pino.symbols.streamSym]!;
  const write = stream.write;
  stream.write = (chunk: string) => {
    for (const text of chunk.split('\n').filter(Boolean)) lines.push(JSON.parse(text) as LogLine);
    return true;
  };
  return { lines, restore: () => void (stream.write = write) };
}
