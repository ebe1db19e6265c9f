/**
 * The output schemas a client is given by tools/list, compiled by an Ajv of the tests' own
 * (JSON Schema 2020-12 with formats, strict about unknown keywords off as MCP hosts are), to check
 * what tools/call returns against what was advertised: not against the server's own validator.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export interface ListedTool {
  name: string;
  outputSchema?: unknown;
}

export type OutputCheck = (tool: string, structuredContent: unknown) => string | null;

/** A check of each listed tool's structuredContent against its listed outputSchema: null when it matches, else the problems. */
export function listedOutputCheck(tools: readonly ListedTool[]): OutputCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  const validators = new Map<string, ValidateFunction>();
  for (const tool of tools) {
    if (typeof tool.outputSchema !== 'object' || tool.outputSchema === null) throw new Error(`${tool.name}: tools/list gave no outputSchema`);
    validators.set(tool.name, ajv.compile(tool.outputSchema));
  }
  return (tool, structuredContent) => {
    const validate = validators.get(tool);
    if (!validate) return `${tool} is not listed`;
    if (validate(structuredContent)) return null;
    return ajv.errorsText(validate.errors, { dataVar: tool });
  };
}
