/**
 * What a command answers: human-readable lines on stdout, or with `--json` exactly one JSON
 * object on stdout and nothing else.
 */
export interface Output {
  json: boolean;
  /** human-readable lines (ignored with --json) */
  lines: string[];
  /** the JSON object (--json) */
  data: Record<string, unknown>;
}

export function output(json: boolean, lines: string[], data: Record<string, unknown>): Output {
  return { json, lines, data };
}

/** Writes the answer; the exit code of a command that answered. */
export function print(stdout: (text: string) => void, result: Output): number {
  if (result.json) stdout(`${JSON.stringify(result.data)}\n`);
  else stdout(`${result.lines.join('\n')}\n`);
  return 0;
}

/** Left-aligned columns, two spaces apart. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
