/**
 * Deprecation, stated once where it is true: on a schema field (`deprecationReason`, with the
 * dates in the field's `extensions.deprecation`, schema/deprecation.ts) or on a REST route row
 * (route.ts `deprecated`). A route or an MCP tool whose operation selects a deprecated field is
 * deprecated through it, so nothing is restated: the REST headers, the OpenAPI `deprecated`, the
 * MCP tool description and GET /api/usage/deprecated all derive from here.
 */
import { isInterfaceType, isObjectType, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLField, type GraphQLSchema } from 'graphql';

/** A deprecation's facts. Dates are calendar days (UTC), `YYYY-MM-DD`. */
export interface Deprecation {
  /** What to use instead, in a sentence. */
  reason: string;
  /** When it was deprecated (the `Deprecation` header, RFC 9745). */
  since: string;
  /** When it may stop working (the `Sunset` header, RFC 8594). */
  sunset: string;
  /** Documentation of the deprecation and its replacement (the `Link` header's target); default DEFAULT_DEPRECATION_LINK. */
  link?: string;
}

/** The API reference, where the OpenAPI document marks each deprecated route with its reason and sunset. */
export const DEFAULT_DEPRECATION_LINK = '/api-docs';

/** A deprecated schema field, by its schema coordinate (`UploadLimits.fileTypes`). */
export interface FieldDeprecation extends Deprecation {
  coordinate: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The deprecation a field carries: its deprecationReason with the dates of its extensions (none without them). */
function fieldDeprecation(field: GraphQLField<unknown, unknown>, coordinate: string): FieldDeprecation | undefined {
  if (!field.deprecationReason) return undefined;
  const dates = (field.extensions as { deprecation?: Partial<Deprecation> } | undefined)?.deprecation;
  if (!dates?.since || !dates.sunset) return undefined;
  return { coordinate, reason: dates.reason ?? field.deprecationReason, since: dates.since, sunset: dates.sunset, ...(dates.link ? { link: dates.link } : {}) };
}

/**
 * Every deprecated field of the schema, in type and field order. Throws for one deprecated without
 * its dates (a plain `deprecationReason`): nothing could tell its callers when it ends.
 */
export function deprecatedFields(schema: GraphQLSchema): FieldDeprecation[] {
  const found: FieldDeprecation[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.deprecationReason) continue;
      const coordinate = `${type.name}.${field.name}`;
      const deprecation = fieldDeprecation(field, coordinate);
      if (!deprecation) throw new Error(`${coordinate} is deprecated without since and sunset dates: use schema/deprecation.ts deprecated()`);
      found.push(deprecation);
    }
  }
  return found;
}

const selected = new WeakMap<DocumentNode, FieldDeprecation[]>();

/** The deprecated fields a document selects (each once), remembered per parsed document. */
export function deprecatedFieldsIn(schema: GraphQLSchema, document: DocumentNode): FieldDeprecation[] {
  let found = selected.get(document);
  if (!found) {
    const byCoordinate = new Map<string, FieldDeprecation>();
    const typeInfo = new TypeInfo(schema);
    visit(
      document,
      visitWithTypeInfo(typeInfo, {
        Field() {
          const field = typeInfo.getFieldDef();
          const parent = typeInfo.getParentType();
          if (!field?.deprecationReason || !parent) return;
          const deprecation = fieldDeprecation(field, `${parent.name}.${field.name}`);
          if (deprecation) byCoordinate.set(deprecation.coordinate, deprecation);
        },
      }),
    );
    found = [...byCoordinate.values()];
    selected.set(document, found);
  }
  return found;
}

/**
 * A route's or tool's deprecation: its own (a route row's `deprecated`), else the one of the
 * deprecated fields its operation selects that ends first (its sunset is the operation's).
 */
export function operationDeprecation(own: Deprecation | undefined, fields: FieldDeprecation[]): Deprecation | undefined {
  if (own) return own;
  const [first] = [...fields].sort((a, b) => a.sunset.localeCompare(b.sunset));
  if (!first) return undefined;
  const { coordinate, ...facts } = first;
  return { ...facts, reason: `It selects ${coordinate}, which is deprecated: ${facts.reason}` };
}

/** One line for a description: what is deprecated and until when. */
export function deprecationNote(deprecation: Deprecation): string {
  return `Deprecated since ${deprecation.since}, sunset ${deprecation.sunset}: ${deprecation.reason}`;
}

/** RFC 9745 `Deprecation`, RFC 8594 `Sunset` and the `Link` to the documentation (rel="deprecation"). */
export function deprecationHeaders(deprecation: Deprecation): Record<'Deprecation' | 'Sunset' | 'Link', string> {
  return {
    Deprecation: `@${Math.floor(dayStart(deprecation.since).getTime() / 1000)}`,
    Sunset: dayStart(deprecation.sunset).toUTCString(),
    Link: `<${deprecation.link ?? DEFAULT_DEPRECATION_LINK}>; rel="deprecation"; type="text/html"`,
  };
}

/** Midnight UTC of a `YYYY-MM-DD` day. */
function dayStart(day: string): Date {
  if (!DAY.test(day)) throw new Error(`not a YYYY-MM-DD day: ${day}`);
  return new Date(`${day}T00:00:00Z`);
}

/** A tool's description, led by its deprecation when its operation selects a deprecated field (what MCP clients show an agent). */
export function withDeprecationNote(description: string, schema: GraphQLSchema, document: DocumentNode): string {
  const deprecation = operationDeprecation(undefined, deprecatedFieldsIn(schema, document));
  return deprecation ? `${deprecationNote(deprecation)}\n\n${description}` : description;
}
