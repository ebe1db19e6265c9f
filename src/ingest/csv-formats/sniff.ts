/** Content sniffing: whether an upload can be a CSV file at all (the upload's 415 decision). */
import { isUtf8 } from 'node:buffer';

export const SNIFF_BYTES = 64 * 1024;

const SIGNATURES: ReadonlyArray<{ bytes: ReadonlyArray<number | null>; name: string; printable?: boolean }> = [
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], name: 'a PDF document' }, // %PDF-
  { bytes: [0x50, 0x4b, 0x03, 0x04], name: 'a ZIP archive (xlsx?)' },
  { bytes: [0x50, 0x4b, 0x05, 0x06], name: 'a ZIP archive (xlsx?)' },
  { bytes: [0x50, 0x4b, 0x07, 0x08], name: 'a ZIP archive (xlsx?)' },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], name: 'an OLE2 compound document (legacy .xls/.doc?)' },
  { bytes: [0x1f, 0x8b], name: 'a GZIP archive' },
  { bytes: [0x42, 0x5a, 0x68], name: 'a BZIP2 archive', printable: true }, // BZh
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], name: 'an XZ archive' },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], name: 'a Zstandard archive' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], name: 'a 7-Zip archive' },
  { bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], name: 'a RAR archive' },
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], name: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], name: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], name: 'a GIF image', printable: true }, // GIF8
  { bytes: [0x49, 0x49, 0x2a, 0x00], name: 'a TIFF image' },
  { bytes: [0x4d, 0x4d, 0x00, 0x2a], name: 'a TIFF image' },
  { bytes: [0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50], name: 'a WebP image' },
  { bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x20, 0x33, 0x00], name: 'an SQLite database' },
  { bytes: [0x50, 0x41, 0x52, 0x31], name: 'a Parquet file', printable: true }, // PAR1
  { bytes: [0x7f, 0x45, 0x4c, 0x46], name: 'an ELF executable' },
  { bytes: [0x4d, 0x5a], name: 'a Windows executable', printable: true }, // MZ
  { bytes: [0x00, 0x00, 0xfe, 0xff], name: 'UTF-32 text (save the file as UTF-8)' },
  { bytes: [0xff, 0xfe, 0x00, 0x00], name: 'UTF-32 text (save the file as UTF-8)' },
  { bytes: [0xff, 0xfe], name: 'UTF-16 text (save the file as UTF-8)' },
  { bytes: [0xfe, 0xff], name: 'UTF-16 text (save the file as UTF-8)' },
];

function looksBinary(buf: Buffer): boolean {
  return buf.includes(0) || !isUtf8(trimIncompleteUtf8Tail(buf));
}

function matchesSignature(buf: Buffer, bytes: ReadonlyArray<number | null>): boolean {
  if (buf.length < bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b !== null && buf[i] !== b) return false;
  }
  return true;
}

/** Drops an incomplete UTF-8 sequence cut off at the end of the sample. */
function trimIncompleteUtf8Tail(buf: Buffer): Buffer {
  const n = buf.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = buf[n - back];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return needed > back ? buf.subarray(0, n - back) : buf;
  }
  return buf;
}

/**
 * Decides from the first bytes of an upload (up to 64 KiB are looked at) whether
 * it can be a CSV file: UTF-8 text (optional BOM), no NUL bytes or other binary
 * control characters, not a known binary format, and a first non-blank line
 * that looks like a comma-separated header. The reason names what the content
 * looks like instead.
 */
export function sniffCsv(firstBytes: Buffer): { ok: true } | { ok: false; reason: string } {
  const buf = firstBytes.subarray(0, SNIFF_BYTES);
  if (buf.length === 0) return { ok: false, reason: 'the file is empty' };
  const reason = signatureReason(buf) ?? nulBytesReason(buf) ?? textReason(buf);
  return reason === null ? { ok: true } : { ok: false, reason };
}

/** A known binary format by its first bytes. */
function signatureReason(buf: Buffer): string | null {
  for (const sig of SIGNATURES) {
    if (!matchesSignature(buf, sig.bytes)) continue;
    // short printable signatures ("MZ", "BZh", "GIF8", "PAR1") are plausible starts of a
    // text line: only believe them when the content is binary as well
    if (sig.printable && !looksBinary(buf)) continue;
    return `looks like ${sig.name}, not a CSV text file`;
  }
  return null;
}

function nulBytesReason(buf: Buffer): string | null {
  if (!buf.includes(0)) return null;
  // UTF-16 without BOM: NULs in every other byte of ASCII text
  let evenNul = 0;
  let oddNul = 0;
  const sample = Math.min(buf.length, 512);
  for (let i = 0; i < sample; i++) if (buf[i] === 0) i % 2 === 0 ? evenNul++ : oddNul++;
  if (Math.max(evenNul, oddNul) > sample / 4 && Math.min(evenNul, oddNul) < sample / 50) {
    return 'looks like UTF-16 text (save the file as UTF-8)';
  }
  return 'contains NUL bytes: looks like a binary file, not CSV text';
}

/** Text that is not UTF-8, has control characters, or whose first line is no CSV header. */
function textReason(buf: Buffer): string | null {
  const hasBom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  const body = trimIncompleteUtf8Tail(hasBom ? buf.subarray(3) : buf);
  if (!isUtf8(body)) return 'is not valid UTF-8 text (Latin-1 / Windows-1252? save the file as UTF-8)';
  const text = body.toString('utf8');
  const control = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/.exec(text);
  if (control) {
    return `contains the control character U+${control[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}: looks like a binary file, not CSV text`;
  }
  const withoutBlankLines = text.replace(/^(?:[ \t]*(?:\r\n|\r|\n))+/, '');
  const lineEnd = withoutBlankLines.search(/[\r\n]/);
  if (lineEnd < 0 && buf.length >= SNIFF_BYTES) return `the first line is longer than ${SNIFF_BYTES} bytes: not a CSV header`;
  return firstLineReason((lineEnd < 0 ? withoutBlankLines : withoutBlankLines.slice(0, lineEnd)).trim());
}

function firstLineReason(firstLine: string): string | null {
  if (firstLine === '') return 'the file has no header line (only blank content)';
  if (/^(<\?xml|<!doctype|<html|<)/i.test(firstLine)) return 'looks like an HTML/XML document, not CSV';
  if (/^[{[]/.test(firstLine)) return 'looks like JSON, not CSV';
  if (/^%PDF/.test(firstLine)) return 'looks like a PDF document, not a CSV text file';
  if (firstLine.includes(',')) return null;
  if (firstLine.includes(';')) return 'the first line has no commas: looks semicolon-separated (only comma-separated files are accepted)';
  if (firstLine.includes('\t')) return 'the first line has no commas: looks tab-separated (only comma-separated files are accepted)';
  return 'the first line has no commas: does not look like a CSV header';
}
