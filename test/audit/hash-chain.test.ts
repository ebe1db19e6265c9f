/**
 * The text the audit hash covers. The writer writes it with a fast path (hashedText: the fields in
 * their canonical order, for the native JSON.stringify); events already stored were hashed as the
 * canonical JSON of the event, so the fast path must give the same text byte for byte, or every
 * stored chain would stop verifying. Checked here against the definition on generated events.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, hashedText, hashOfText, isoTime, type HashedFields } from '../../src/audit/hash-chain.ts';

/** The definition: every field but the hash, the time in ISO 8601, as canonical JSON. */
function definition(event: HashedFields): string {
  const { occurredAt, variables, ...rest } = event;
  return canonicalJson({ ...rest, occurredAt: occurredAt.toISOString(), variables: variables ?? null });
}

/** Strings with what JSON escapes: quotes, backslashes, control characters, NUL, lone surrogates, emoji. */
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0000', '\ud800', '\udfff', '😀', '\u2028'));
const optionalText = fc.option(text, { nil: null });

const event: fc.Arbitrary<HashedFields> = fc.record({
  id: fc.uuid(),
  chain: text,
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  occurredAt: fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
  organizationId: optionalText,
  actorId: optionalText,
  credentialKind: optionalText,
  credentialId: optionalText,
  credentialPrefix: optionalText,
  front: text,
  operation: text,
  targetType: optionalText,
  targetId: optionalText,
  outcome: text,
  clientAddress: optionalText,
  userAgent: optionalText,
  requestId: optionalText,
  traceId: optionalText,
  variables: fc.option(fc.jsonValue(), { nil: null }),
});

describe('the audit hash text', () => {
  it('the fast path writes exactly the canonical JSON of the event', () => {
    fc.assert(
      fc.property(event, (e) => {
        expect(hashedText(e)).toBe(definition(e));
      }),
      { numRuns: 2_000 },
    );
  });

  it('canonical JSON is the same for a value and for what JSON (and so PostgreSQL jsonb) gives back of it', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        fc.date({ noInvalidDate: true }),
        fc.constant(undefined),
        fc.bigInt(),
        fc.array(tie('node')),
        fc.dictionary(fc.string(), tie('node')),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(
          canonicalJson(JSON.parse(JSON.stringify(v, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item)) ?? 'null')),
        );
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes the time as toISOString does, byte for byte: any date, and runs of dates within a day, across days, and backwards', () => {
    const date = fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true });
    fc.assert(
      fc.property(date, fc.array(fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 }), { maxLength: 20 }), (start, steps) => {
        let time = start.getTime();
        for (const step of [0, ...steps]) {
          time = Math.min(8.64e15, Math.max(-8.64e15, time + step));
          expect(isoTime(new Date(time))).toBe(new Date(time).toISOString());
        }
      }),
      { numRuns: 2_000 },
    );
    for (const iso of [
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2024-02-29T23:59:59.999Z',
      '2024-03-01T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
    ])
      expect(isoTime(new Date(iso))).toBe(iso);
  });

  it('hashes the previous hash and the text as one sha256 over both, as the chain was defined', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string({ unit: 'grapheme' }), (previous, text) => {
        expect(hashOfText(previous, text)).toBe(createHash('sha256').update(previous).update(text).digest('hex'));
      }),
      { numRuns: 500 },
    );
  });

  it('sorts keys at every level by UTF-16 code units, integer-like keys included', () => {
    expect(canonicalJson({ b: 1, 10: 'x', 2: 'y', a: { d: [2, undefined, { f: 1, e: 2 }], c: null }, u: undefined })).toBe(
      '{"10":"x","2":"y","a":{"c":null,"d":[2,null,{"e":2,"f":1}]},"b":1}',
    );
  });
});
