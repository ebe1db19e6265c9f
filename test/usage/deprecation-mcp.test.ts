/**
 * An MCP tool whose operation selects a deprecated field is deprecated through it: its description
 * (what tools/list shows an agent) leads with the deprecation (docs/usage-and-deprecation.md).
 */
import { describe, expect, it } from 'vitest';
import { standaloneRunner } from '../../schema/pipeline/index.ts';
import { prepareTools, toolListing } from '../../mcp/tool-catalog.ts';
import { TOOLS, type ToolDefinition } from '../../mcp/tools.ts';
import { value } from '../../mcp/tool-results.ts';

describe('a tool selecting a deprecated field', () => {
  it('makes a tool that selects it say so in its description; the real tools select none', () => {
    const tool: ToolDefinition = {
      name: 'upload_types',
      title: 'Upload types',
      description: 'The file types an upload may have.',
      operation: 'query ToolUploadTypes { uploadLimits { fileTypes } }',
      annotations: { readOnlyHint: true },
      result: value('uploadLimits'),
    };
    const runner = standaloneRunner({ maxDepth: 12 });
    const [listed] = toolListing(prepareTools(runner, [tool]));
    expect(listed.description).toBe(
      `Deprecated since 2026-11-27, sunset 2027-05-31: It selects UploadLimits.fileTypes, which is deprecated: Use formats { fileType }: the same types, with their columns.\n\nThe file types an upload may have.`,
    );
    for (const real of toolListing(prepareTools(runner, TOOLS))) expect(real.description).not.toMatch(/^Deprecated/);
  });
});
