/**
 * The Node version the project claims (package.json `engines`, README) is one every installed
 * package accepts: a fresh `npm install` on that version prints no EBADENGINE warning (issue 24,
 * item 5). Read from package-lock.json, which records each package's `engines`; package.json's
 * `overrides` keep the few that moved to Node 22 on versions that still allow 20.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: Record<string, string> | string[]; optional?: boolean }>;
};

describe('Node engines', () => {
  it("every locked package accepts the oldest Node the project claims (package.json's engines)", () => {
    const oldest = semver.minVersion(manifest.engines.node)!.version;
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return node && !semver.satisfies(oldest, node, { includePrerelease: true }) ? [`${path}@${entry.version}: node ${node}`] : [];
      });
    expect(oldest).toBe('20.19.0');
    expect(refusing).toEqual([]);
  });
});
