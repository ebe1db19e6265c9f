import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { GraphQLUpload } from 'graphql-upload-ts';
import { builder } from './builder.ts';
import { INSTANT_RANGE_PROBLEM, isStorableInstant } from '../src/util/instants.ts';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export function isIsoDate(value: string): boolean {
  const match = DATE_PATTERN.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value;
}

function stringLiteral(ast: ValueNode, scalar: string): string {
  if (ast.kind !== Kind.STRING) throw new GraphQLError(`${scalar} must be given as a string`);
  return ast.value;
}

function parseUuid(value: unknown): string {
  if (typeof value !== 'string' || !isUuid(value)) throw new GraphQLError(`must be a UUID, got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}

function parseDate(value: unknown): string {
  if (typeof value !== 'string' || !isIsoDate(value)) throw new GraphQLError(`must be an ISO date (YYYY-MM-DD), got ${JSON.stringify(value)}`);
  return value;
}

builder.scalarType('UUID', {
  description: 'An RFC 4122 UUID, lower-case on output.',
  serialize: (value) => String(value),
  parseValue: parseUuid,
  parseLiteral: (ast) => parseUuid(stringLiteral(ast, 'UUID')),
});

builder.scalarType('Date', {
  description: 'A calendar date, ISO 8601 `YYYY-MM-DD`.',
  serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value)),
  parseValue: parseDate,
  parseLiteral: (ast) => parseDate(stringLiteral(ast, 'Date')),
});

builder.scalarType('DateTime', {
  description: 'An instant, ISO 8601 in UTC with milliseconds (`2026-01-31T09:30:00.000Z`).',
  serialize: (value) => (value instanceof Date ? value : new Date(String(value))).toISOString(),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(stringLiteral(ast, 'DateTime')),
});

function parseDateTime(value: unknown): Date {
  const date = new Date(String(value));
  if (typeof value !== 'string' || Number.isNaN(date.getTime())) throw new GraphQLError(`must be an ISO 8601 timestamp, got ${JSON.stringify(value)}`);
  if (!isStorableInstant(date)) throw new GraphQLError(`${INSTANT_RANGE_PROBLEM}, got ${JSON.stringify(value)}`);
  return date;
}

builder.scalarType('Decimal', {
  description: 'An exact decimal number as a string (money, returns as fractions, basis points). Never a binary float.',
  serialize: (value) => String(value),
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^[+-]?\d+(\.\d+)?$/.test(value)) throw new GraphQLError(`must be a decimal string, got ${JSON.stringify(value)}`);
    return value;
  },
});

builder.scalarType('SafeInt', {
  description: 'An integer up to 2^53 - 1 (byte counts).',
  serialize: (value) => Number(value),
  parseValue: (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new GraphQLError('must be a safe integer');
    return value;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.addScalarType('Upload', GraphQLUpload, {});
