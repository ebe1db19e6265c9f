/**
 * `pageSize: PAGE_SIZES.stickies` on a list field: its default and largest page, stated once.
 * The description says them, `extensions.pageSize` carries them to the other fronts (the MCP
 * tools' `first`), and the resolver reads them back with forwardPage(args, info).
 *
 * A connection with a pageSize is a keyset page read forward: it offers `first` and `after` only.
 * Relay's `last` and `before` (which t.connection and prismaConnection always add) are dropped
 * from it, so the SDL offers only the arguments that work (test/graphql/pagination.test.ts).
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLField, GraphQLResolveInfo } from 'graphql';
import type { PageSize } from '../../src/pagination.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      pageSize: PageSizePlugin<Types>;
    }
    export interface FieldOptions<Types extends SchemaTypes, ParentShape, Type, Nullable, Args, ResolveShape, ResolveReturnShape> {
      /** The list's default and largest page (PAGE_SIZES). */
      pageSize?: PageSize;
    }
  }
}

/** A field's page size, if it has one. */
export function pageSizeOf(field: Pick<GraphQLField<unknown, unknown>, 'extensions'> | undefined): PageSize | undefined {
  return (field?.extensions as { pageSize?: PageSize } | undefined)?.pageSize;
}

/** The page size of the field being resolved. */
export function pageSizeHere(info: GraphQLResolveInfo): PageSize {
  const size = pageSizeOf(info.parentType.getFields()[info.fieldName]);
  if (!size) throw new Error(`${info.parentType.name}.${info.fieldName} has no pageSize`);
  return size;
}

/** Relay's backward-pagination arguments, which no page here reads. */
const BACKWARD_ARGUMENTS = ['last', 'before'];

export class PageSizePlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const size = fieldConfig.pothosOptions.pageSize;
    if (!size) return fieldConfig;
    const said = `Pages: first defaults to ${size.first}, at most ${size.max}.`;
    return {
      ...fieldConfig,
      args: Object.fromEntries(Object.entries(fieldConfig.args).filter(([name]) => !BACKWARD_ARGUMENTS.includes(name))),
      description: fieldConfig.description ? `${fieldConfig.description} ${said}` : said,
      extensions: { ...fieldConfig.extensions, pageSize: size },
    };
  }
}

const pluginName = 'pageSize';
SchemaBuilder.registerPlugin(pluginName, PageSizePlugin);

export default pluginName;
