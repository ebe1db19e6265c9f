/** A cookie's value from a Cookie header (percent-decoded when it can be), or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      const value = part.slice(index + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        // Malformed percent-encoding: keep the raw value; it fails verification like any bad token (401, not 500).
        return value;
      }
    }
  }
  return undefined;
}
