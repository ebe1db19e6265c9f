/**
 * The guard against hand-written SQL drifting from prisma/schema.prisma (the Prisma CLI cannot
 * generate migrations here; see DESIGN.md). Every migration is applied by our own migrator to a
 * fresh database, the database is introspected through pg_catalog, and the result is compared
 * with the data model as Prisma itself parses it. A failure lists every mismatch, one a line.
 *
 * Also tests the migrator: bookkeeping identical to the Prisma CLI's, idempotence, refusal on
 * tampered or failed migrations, rollback of a failing migration, and (on PostgreSQL, when one
 * is reachable) the advisory lock between two instances starting at once.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MIGRATION_ADVISORY_LOCK_KEY,
  checksumMatches,
  migrate,
  migrationChecksum,
  type ConnectionPool,
  type PooledConnection,
  type Queryable,
} from '../../src/db/migrator.ts';
import { loadDatamodel, stripGenerators, type Datamodel, type DmmfField } from './prisma-schema-parser.ts';

const SCHEMA_PATH = fileURLToPath(new URL('../../prisma/schema.prisma', import.meta.url));
const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const MAX_IDENTIFIER_LENGTH = 63;

// ---------------------------------------------------------------------------------------------
// A database schema in one canonical shape, built both from the data model and from pg_catalog.

interface ColumnShape {
  type: string; // as pg's format_type() prints it: "numeric(20,4)", "timestamp(3) with time zone", "\"UserRole\"", "text[]"
  nullable: boolean;
  default: string | null; // as pg_get_expr() prints it: "CURRENT_TIMESTAMP", "'member'::\"UserRole\"", "0"
}

interface IndexShape {
  table: string;
  columns: string[];
  unique: boolean;
}

interface ForeignKeyShape {
  table: string;
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  onDelete: string;
  onUpdate: string;
}

interface SchemaShape {
  enums: Map<string, string[]>;
  tables: Map<string, Map<string, ColumnShape>>;
  primaryKeys: Map<string, { name: string; columns: string[] }>; // by table
  indexes: Map<string, IndexShape>; // by index name, primary keys excluded
  foreignKeys: Map<string, ForeignKeyShape>; // by constraint name
}

/** Prisma's default constraint names (psl), cut to PostgreSQL's identifier length like Prisma does. */
function defaultName(table: string, columns: string[], suffix: 'key' | 'idx' | 'fkey' | 'pkey'): string {
  const base = suffix === 'pkey' ? table : `${table}_${columns.join('_')}`;
  const max = MAX_IDENTIFIER_LENGTH - suffix.length - 1;
  return `${base.length > max ? base.slice(0, max) : base}_${suffix}`;
}

function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Text: () => 'text',
  VarChar: (a) => (a.length ? `character varying(${a[0]})` : 'character varying'),
  Char: (a) => `character(${a[0] ?? 1})`,
  Uuid: () => 'uuid',
  Date: () => 'date',
  Timestamptz: (a) => (a.length ? `timestamp(${a[0]}) with time zone` : 'timestamp with time zone'),
  Timestamp: (a) => (a.length ? `timestamp(${a[0]}) without time zone` : 'timestamp without time zone'),
  Time: (a) => (a.length ? `time(${a[0]}) without time zone` : 'time without time zone'),
  Timetz: (a) => (a.length ? `time(${a[0]}) with time zone` : 'time with time zone'),
  Decimal: (a) => (a.length ? `numeric(${a.join(',')})` : 'numeric'),
  Integer: () => 'integer',
  SmallInt: () => 'smallint',
  BigInt: () => 'bigint',
  Real: () => 'real',
  DoublePrecision: () => 'double precision',
  Boolean: () => 'boolean',
  Json: () => 'json',
  JsonB: () => 'jsonb',
  ByteA: () => 'bytea',
  Inet: () => 'inet',
  Citext: () => 'citext',
  Xml: () => 'xml',
  Money: () => 'money',
  Oid: () => 'oid',
};

const SCALAR_TYPES: Record<string, string> = {
  String: 'text',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  DateTime: 'timestamp(3) without time zone',
  Boolean: 'boolean',
  Json: 'jsonb',
  Bytes: 'bytea',
};

/** Field db type as format_type() prints it. */
function expectedType(field: DmmfField, enumDbName: (name: string) => string): string {
  let type: string;
  if (field.kind === 'enum') type = quoteIdent(enumDbName(field.type));
  else if (field.nativeType) {
    const [name, args] = field.nativeType;
    type = NATIVE_TYPES[name]?.(args) ?? `<no mapping for @db.${name} in schema-drift.test.ts>`;
  } else type = SCALAR_TYPES[field.type] ?? `<no mapping for ${field.type} in schema-drift.test.ts>`;
  return field.isList ? `${type}[]` : type;
}

/** Field default as pg_get_expr() prints it; null when Prisma leaves it to the client. */
function expectedDefault(field: DmmfField, columnType: string): string | null {
  const value = field.default;
  if (value === undefined || field.isUpdatedAt) return null;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    switch (value.name) {
      case 'now':
        return 'CURRENT_TIMESTAMP';
      case 'uuid':
      case 'cuid':
      case 'nanoid':
      case 'ulid':
        return null; // generated by the client
      case 'dbgenerated':
        return String(value.args[0]);
      default:
        return `<default ${value.name}() not supported by schema-drift.test.ts>`;
    }
  }
  if (typeof value === 'string') {
    const literal = `'${value.replace(/'/g, "''")}'`;
    return field.kind === 'enum' ? `${literal}::${columnType}` : columnType === 'text' ? `${literal}::text` : literal;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `<default ${JSON.stringify(value)} not supported by schema-drift.test.ts>`;
}

function expectedSchema(dm: Datamodel): SchemaShape {
  const shape: SchemaShape = { enums: new Map(), tables: new Map(), primaryKeys: new Map(), indexes: new Map(), foreignKeys: new Map() };
  const enumDbName = (name: string) => dm.enums.find((e) => e.name === name)?.dbName ?? name;
  for (const e of dm.enums)
    shape.enums.set(
      e.dbName ?? e.name,
      e.values.map((v) => v.dbName ?? v.name),
    );

  const models = new Map(dm.models.map((m) => [m.name, m]));
  const tableOf = (model: string) => models.get(model)!.dbName ?? model;
  const columnOf = (model: string, field: string) => {
    const f = models.get(model)!.fields.find((x) => x.name === field);
    return f?.dbName ?? field;
  };

  for (const model of dm.models) {
    const table = tableOf(model.name);
    const columns = new Map<string, ColumnShape>();
    for (const field of model.fields) {
      if (field.kind === 'object') continue;
      const type = expectedType(field, enumDbName);
      columns.set(field.dbName ?? field.name, {
        type,
        // Prisma renders list columns without NOT NULL.
        nullable: field.isList ? true : !field.isRequired,
        default: expectedDefault(field, type),
      });
    }
    shape.tables.set(table, columns);

    for (const field of model.fields) {
      if (field.kind !== 'object' || !field.relationFromFields?.length) continue;
      const cols = field.relationFromFields.map((f) => columnOf(model.name, f));
      const required = field.relationFromFields.every((f) => model.fields.find((x) => x.name === f)?.isRequired);
      shape.foreignKeys.set(defaultName(table, cols, 'fkey'), {
        table,
        columns: cols,
        referencedTable: tableOf(field.type),
        referencedColumns: (field.relationToFields ?? []).map((f) => columnOf(field.type, f)),
        // Prisma's defaults: Restrict for a required relation, SetNull for an optional one; Cascade on update.
        onDelete: field.relationOnDelete ?? (required ? 'Restrict' : 'SetNull'),
        onUpdate: field.relationOnUpdate ?? 'Cascade',
      });
    }
  }

  for (const index of dm.indexes) {
    const table = tableOf(index.model);
    const columns = index.fields.map((f) => columnOf(index.model, f.name));
    if (index.type === 'id') {
      shape.primaryKeys.set(table, { name: index.dbName ?? defaultName(table, columns, 'pkey'), columns });
    } else {
      const unique = index.type === 'unique';
      shape.indexes.set(index.dbName ?? defaultName(table, columns, unique ? 'key' : 'idx'), { table, columns, unique });
    }
  }
  return shape;
}

const FK_ACTIONS: Record<string, string> = { a: 'NoAction', r: 'Restrict', c: 'Cascade', n: 'SetNull', d: 'SetDefault' };

async function introspect(db: Queryable): Promise<SchemaShape> {
  const shape: SchemaShape = { enums: new Map(), tables: new Map(), primaryKeys: new Map(), indexes: new Map(), foreignKeys: new Map() };

  const enums = await db.query<{ name: string; values: string[] }>(`
    SELECT t.typname::text AS name,
           array(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder)::text[] AS values
      FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
     WHERE t.typtype = 'e' AND n.nspname = current_schema()`);
  for (const e of enums.rows) shape.enums.set(e.name, e.values);

  const tables = await db.query<{ name: string }>(`
    SELECT c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`);
  for (const t of tables.rows) shape.tables.set(t.name, new Map());

  const columns = await db.query<{ table: string; column: string; type: string; notnull: boolean; default: string | null }>(`
    SELECT c.relname::text AS table, a.attname::text AS column, format_type(a.atttypid, a.atttypmod) AS type,
           a.attnotnull AS notnull, pg_get_expr(d.adbin, d.adrelid) AS default
      FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
     ORDER BY c.relname, a.attnum`);
  for (const c of columns.rows) {
    shape.tables.get(c.table)!.set(c.column, { type: c.type, nullable: !c.notnull, default: c.default });
  }

  const indexes = await db.query<{
    table: string;
    name: string;
    unique: boolean;
    primary: boolean;
    columns: string[];
    method: string;
    partial: boolean;
    expression: boolean;
  }>(`
    SELECT t.relname::text AS table, i.relname::text AS name, ix.indisunique AS unique, ix.indisprimary AS primary,
           am.amname::text AS method, ix.indpred IS NOT NULL AS partial, ix.indexprs IS NOT NULL AS expression,
           array(SELECT a.attname::text FROM unnest(ix.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                   JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns
      FROM pg_index ix
      JOIN pg_class i ON i.oid = ix.indexrelid
      JOIN pg_class t ON t.oid = ix.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      JOIN pg_am am ON am.oid = i.relam
     WHERE n.nspname = current_schema()`);
  for (const ix of indexes.rows) {
    if (ix.primary) continue; // compared through the constraint below
    // Prisma creates plain B-tree indexes on columns; anything else is drift as far as this guard knows.
    const columns =
      ix.method === 'btree' && !ix.partial && !ix.expression
        ? ix.columns
        : [`<${ix.method}${ix.partial ? ' partial' : ''}${ix.expression ? ' expression' : ''} index>`, ...ix.columns];
    shape.indexes.set(ix.name, { table: ix.table, columns, unique: ix.unique });
  }

  const constraints = await db.query<{
    name: string;
    type: string;
    table: string;
    ref_table: string | null;
    on_delete: string;
    on_update: string;
    columns: string[];
    ref_columns: string[];
  }>(`
    SELECT con.conname::text AS name, con.contype::text AS type, t.relname::text AS table, rt.relname::text AS ref_table,
           con.confdeltype::text AS on_delete, con.confupdtype::text AS on_update,
           array(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
                   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns,
           array(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(attnum, ord)
                   JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS ref_columns
      FROM pg_constraint con
      JOIN pg_class t ON t.oid = con.conrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      LEFT JOIN pg_class rt ON rt.oid = con.confrelid
     WHERE n.nspname = current_schema() AND con.contype IN ('p', 'f')`);
  for (const con of constraints.rows) {
    if (con.type === 'p') shape.primaryKeys.set(con.table, { name: con.name, columns: con.columns });
    else {
      shape.foreignKeys.set(con.name, {
        table: con.table,
        columns: con.columns,
        referencedTable: con.ref_table ?? '?',
        referencedColumns: con.ref_columns,
        onDelete: FK_ACTIONS[con.on_delete] ?? con.on_delete,
        onUpdate: FK_ACTIONS[con.on_update] ?? con.on_update,
      });
    }
  }
  return shape;
}

const cols = (c: string[]) => `(${c.join(', ')})`;
const describeColumn = (c: ColumnShape) => `${c.type} ${c.nullable ? 'NULL' : 'NOT NULL'}${c.default === null ? '' : ` DEFAULT ${c.default}`}`;
const describeIndex = (i: IndexShape) => `${i.unique ? 'unique index' : 'index'} on "${i.table}"${cols(i.columns)}`;
const describeFk = (f: ForeignKeyShape) =>
  `"${f.table}"${cols(f.columns)} -> "${f.referencedTable}"${cols(f.referencedColumns)} ON DELETE ${f.onDelete} ON UPDATE ${f.onUpdate}`;

function compareMaps<T>(
  what: string,
  expected: Map<string, T>,
  actual: Map<string, T>,
  show: (v: T) => string,
  out: string[],
  ignore: (name: string) => boolean = () => false,
): void {
  for (const [name, want] of expected) {
    const got = actual.get(name);
    if (got === undefined) out.push(`${what} "${name}": missing from the database (schema.prisma has ${show(want)})`);
    else if (show(got) !== show(want)) out.push(`${what} "${name}": schema.prisma has ${show(want)}; the database has ${show(got)}`);
  }
  for (const [name, got] of actual) {
    if (!expected.has(name) && !ignore(name)) out.push(`${what} "${name}": in the database but not in schema.prisma (${show(got)})`);
  }
}

/** Every difference between the data model and the database, one readable line each. */
function diffSchemas(expected: SchemaShape, actual: SchemaShape, ignoreTables: string[] = ['_prisma_migrations']): string[] {
  const out: string[] = [];
  const ignored = (table: string) => ignoreTables.includes(table);
  compareMaps('enum', expected.enums, actual.enums, (v) => v.join(', '), out);
  for (const [table, wantColumns] of expected.tables) {
    const gotColumns = actual.tables.get(table);
    if (!gotColumns) {
      out.push(`table "${table}": missing from the database`);
      continue;
    }
    const prefixed = (m: Map<string, ColumnShape>) => new Map([...m].map(([k, v]) => [`${table}"."${k}`, v]));
    compareMaps('column', prefixed(wantColumns), prefixed(gotColumns), describeColumn, out);
  }
  for (const table of actual.tables.keys()) {
    if (!expected.tables.has(table) && !ignored(table)) out.push(`table "${table}": in the database but not in schema.prisma`);
  }
  compareMaps('primary key of', expected.primaryKeys, actual.primaryKeys, (p) => `"${p.name}" ${cols(p.columns)}`, out, ignored);
  compareMaps('index', expected.indexes, actual.indexes, describeIndex, out, (name) => ignored(actual.indexes.get(name)!.table));
  compareMaps('foreign key', expected.foreignKeys, actual.foreignKeys, describeFk, out, (name) => ignored(actual.foreignKeys.get(name)!.table));
  return out;
}

function driftMessage(diff: string[]): string {
  return `The database built from prisma/migrations differs from prisma/schema.prisma (${diff.length} difference(s)):\n  - ${diff.join('\n  - ')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Connections.

function pgliteQueryable(db: PGlite): Queryable {
  return {
    async query<T = Record<string, unknown>>(sql: string, params?: unknown[]) {
      const result = await db.query<T>(sql, params as unknown[] | undefined);
      return { rows: result.rows };
    },
    async exec(sql: string) {
      return db.exec(sql);
    },
  };
}

async function migrationDirNames(dir: string): Promise<string[]> {
  return (await fs.readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

async function copyMigrations(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'migrations-'));
  await fs.cp(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

let datamodel: Datamodel;
beforeAll(async () => {
  datamodel = await loadDatamodel(SCHEMA_PATH);
}, 60_000);

// ---------------------------------------------------------------------------------------------

describe('prisma/migrations reproduce prisma/schema.prisma (PGlite)', () => {
  let pglite: PGlite;
  let db: Queryable;
  let applied: string[];
  const logs: string[] = [];

  beforeAll(async () => {
    pglite = await PGlite.create();
    db = pgliteQueryable(pglite);
    ({ applied } = await migrate(db, { log: (msg) => logs.push(msg) }));
  }, 60_000);
  afterAll(async () => {
    await pglite?.close();
  });

  it('applies every migration directory, in name order, and logs it', async () => {
    const names = await migrationDirNames(MIGRATIONS_DIR);
    expect(names.length).toBeGreaterThan(0);
    expect(applied).toEqual(names);
    expect(logs).toEqual(names.map((n) => `applied migration ${n}`));
  });

  it('the data model was read by Prisma, native types included', () => {
    const valuation = datamodel.models.find((m) => m.name === 'Valuation')!;
    expect(valuation.fields.find((f) => f.name === 'marketValue')?.nativeType).toEqual(['Decimal', ['20', '4']]);
    expect(datamodel.models.length).toBeGreaterThan(5);
  });

  it('the migrated database matches schema.prisma: tables, columns, types, nullability, defaults, keys, indexes, foreign keys, enums', async () => {
    const diff = diffSchemas(expectedSchema(datamodel), await introspect(db));
    expect(diff, driftMessage(diff)).toEqual([]);
  });

  it('the comparison notices drift (mutations inside a rolled-back transaction)', async () => {
    await db.query('BEGIN');
    try {
      await pglite.exec(`
        ALTER TABLE "ApiKey" ADD COLUMN "stray" TEXT;
        ALTER TABLE "Valuation" ALTER COLUMN "marketValue" TYPE DECIMAL(20,2);
        ALTER TABLE "User" ALTER COLUMN "name" SET NOT NULL;
        ALTER TABLE "Entity" ALTER COLUMN "currency" DROP DEFAULT;
        DROP INDEX "Entity_accountCode_idx";
        DROP INDEX "Entity_orgId_entityName_key";
        CREATE INDEX "Entity_orgId_entityName_key" ON "Entity"("orgId", "entityName");
        ALTER TABLE "UploadedFile" DROP CONSTRAINT "UploadedFile_uploaderId_fkey";
        ALTER TABLE "UploadedFile" ADD CONSTRAINT "UploadedFile_uploaderId_fkey" FOREIGN KEY ("uploaderId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
        ALTER TYPE "JobState" RENAME VALUE 'failed' TO 'dead';
        CREATE TABLE "Stray" ("id" INTEGER PRIMARY KEY);
      `);
      const diff = diffSchemas(expectedSchema(datamodel), await introspect(db));
      expect([...diff].sort()).toEqual(
        [
          `enum "JobState": schema.prisma has queued, running, completed, failed; the database has queued, running, completed, dead`,
          `column "ApiKey"."stray": in the database but not in schema.prisma (text NULL)`,
          `column "Entity"."currency": schema.prisma has text NOT NULL DEFAULT 'USD'::text; the database has text NOT NULL`,
          `column "User"."name": schema.prisma has text NULL; the database has text NOT NULL`,
          `column "Valuation"."marketValue": schema.prisma has numeric(20,4) NOT NULL; the database has numeric(20,2) NOT NULL`,
          `table "Stray": in the database but not in schema.prisma`,
          `primary key of "Stray": in the database but not in schema.prisma ("Stray_pkey" (id))`,
          `index "Entity_accountCode_idx": missing from the database (schema.prisma has index on "Entity"(accountCode))`,
          `index "Entity_orgId_entityName_key": schema.prisma has unique index on "Entity"(orgId, entityName); the database has index on "Entity"(orgId, entityName)`,
          `foreign key "UploadedFile_uploaderId_fkey": schema.prisma has "UploadedFile"(uploaderId) -> "User"(id) ON DELETE SetNull ON UPDATE Cascade; the database has "UploadedFile"(uploaderId) -> "User"(id) ON DELETE Cascade ON UPDATE Cascade`,
        ].sort(),
      );
      expect(driftMessage(diff)).toContain('differs from prisma/schema.prisma (10 difference(s)):\n  - ');
    } finally {
      await db.query('ROLLBACK');
    }
    expect(diffSchemas(expectedSchema(datamodel), await introspect(db))).toEqual([]);
  });
});

describe('migrator', () => {
  let pglite: PGlite;
  let db: Queryable;
  const tempDirs: string[] = [];

  // One PGlite for the block (starting one takes about a second); each test gets an empty schema.
  beforeAll(async () => {
    pglite = await PGlite.create();
    db = pgliteQueryable(pglite);
  }, 60_000);
  afterAll(async () => {
    await pglite?.close();
  });
  beforeEach(async () => {
    await pglite.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
  });
  afterEach(async () => {
    for (const dir of tempDirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
  });
  const tempCopy = async () => {
    const dir = await copyMigrations();
    tempDirs.push(dir);
    return dir;
  };

  it('creates _prisma_migrations exactly as the Prisma CLI does and records rows as it does', async () => {
    await migrate(db);
    const columns = await db.query(`
      SELECT column_name, data_type, character_maximum_length AS length, is_nullable, column_default
        FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = '_prisma_migrations' ORDER BY ordinal_position`);
    expect(columns.rows).toEqual([
      { column_name: 'id', data_type: 'character varying', length: 36, is_nullable: 'NO', column_default: null },
      { column_name: 'checksum', data_type: 'character varying', length: 64, is_nullable: 'NO', column_default: null },
      { column_name: 'finished_at', data_type: 'timestamp with time zone', length: null, is_nullable: 'YES', column_default: null },
      { column_name: 'migration_name', data_type: 'character varying', length: 255, is_nullable: 'NO', column_default: null },
      { column_name: 'logs', data_type: 'text', length: null, is_nullable: 'YES', column_default: null },
      { column_name: 'rolled_back_at', data_type: 'timestamp with time zone', length: null, is_nullable: 'YES', column_default: null },
      { column_name: 'started_at', data_type: 'timestamp with time zone', length: null, is_nullable: 'NO', column_default: 'now()' },
      { column_name: 'applied_steps_count', data_type: 'integer', length: null, is_nullable: 'NO', column_default: '0' },
    ]);
    const pk = await db.query(`SELECT conname FROM pg_constraint WHERE conrelid = '_prisma_migrations'::regclass AND contype = 'p'`);
    expect(pk.rows).toEqual([{ conname: '_prisma_migrations_pkey' }]);

    const names = await migrationDirNames(MIGRATIONS_DIR);
    const rows = await db.query<{
      id: string;
      checksum: string;
      finished_at: Date | null;
      migration_name: string;
      logs: string | null;
      rolled_back_at: Date | null;
      started_at: Date;
      applied_steps_count: number;
    }>('SELECT * FROM _prisma_migrations ORDER BY migration_name');
    expect(rows.rows.map((r) => r.migration_name)).toEqual(names);
    for (const row of rows.rows) {
      // Prisma: sha256 of the file's bytes, lowercase hex.
      const bytes = await fs.readFile(path.join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.applied_steps_count).toBe(1);
      expect(row.logs).toBeNull();
      expect(row.rolled_back_at).toBeNull();
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
    }
  });

  it('applying twice is a no-op', async () => {
    const first = await migrate(db);
    expect(first.applied.length).toBeGreaterThan(0);
    const before = await db.query('SELECT id, checksum, finished_at FROM _prisma_migrations ORDER BY id');
    const logs: string[] = [];
    const second = await migrate(db, { log: (msg) => logs.push(msg) });
    expect(second.applied).toEqual([]);
    expect(logs).toEqual(['database schema is up to date']);
    expect((await db.query('SELECT id, checksum, finished_at FROM _prisma_migrations ORDER BY id')).rows).toEqual(before.rows);
  });

  it('refuses to start when an applied migration file was changed', async () => {
    const dir = await tempCopy();
    const [first] = await migrationDirNames(dir);
    await migrate(db, { migrationsDir: dir });
    const file = path.join(dir, first, 'migration.sql');
    await fs.appendFile(file, '\n-- an innocent-looking edit\n');
    await expect(migrate(db, { migrationsDir: dir })).rejects.toThrow(
      new RegExp(`Refusing to migrate: applied migration files were modified after being applied: ${first} \\(database [0-9a-f]{64}, file [0-9a-f]{64}\\)`),
    );
  });

  it('refuses to start when the recorded checksum was tampered with', async () => {
    await migrate(db);
    await db.query(`UPDATE _prisma_migrations SET checksum = repeat('0', 64)`);
    await expect(migrate(db)).rejects.toThrow(/were modified after being applied/);
  });

  it('accepts the same file with other line endings, as Prisma does', async () => {
    const dir = await tempCopy();
    const [first] = await migrationDirNames(dir);
    await migrate(db, { migrationsDir: dir });
    const file = path.join(dir, first, 'migration.sql');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(/\n/g, '\r\n'));
    await expect(migrate(db, { migrationsDir: dir })).resolves.toEqual({ applied: [] });
    expect(checksumMatches('a\r\nb\r\n', migrationChecksum('a\nb\n'))).toBe(true);
    expect(checksumMatches('a\nb\n', migrationChecksum('a\r\nb\r\n'))).toBe(true);
    expect(checksumMatches('a\nc\n', migrationChecksum('a\nb\n'))).toBe(false);
  });

  it('refuses to start while a migration is recorded as failed, and proceeds once it is marked rolled back', async () => {
    await migrate(db);
    await db.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, applied_steps_count)
       VALUES ('7d1c5fd6-6f0e-4f55-9d5b-6a3f1f3c2e10', repeat('a', 64), '20990101000000_broken', 'ERROR: boom', 0)`,
    );
    await expect(migrate(db)).rejects.toThrow(/migration 20990101000000_broken is recorded as failed[\s\S]*Logs: ERROR: boom/);
    await db.query(`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '20990101000000_broken'`);
    await expect(migrate(db)).resolves.toEqual({ applied: [] });
  });

  it('rolls back a failing migration entirely, records nothing for it, and applies the next run once fixed', async () => {
    const dir = await tempCopy();
    const bad = path.join(dir, '20991231000000_bad');
    await fs.mkdir(bad);
    await fs.writeFile(path.join(bad, 'migration.sql'), 'CREATE TABLE "Half" ("id" INTEGER);\nSELECT no_such_function();\n');
    const names = await migrationDirNames(dir);
    await expect(migrate(db, { migrationsDir: dir })).rejects.toThrow(/Migration 20991231000000_bad failed and was rolled back: .*no_such_function/);
    const recorded = await db.query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations ORDER BY migration_name');
    expect(recorded.rows.map((r) => r.migration_name)).toEqual(names.filter((n) => n !== '20991231000000_bad'));
    expect((await db.query(`SELECT to_regclass('"Half"') AS t`)).rows).toEqual([{ t: null }]);

    await fs.writeFile(path.join(bad, 'migration.sql'), 'CREATE TABLE "Half" ("id" INTEGER);\n');
    await expect(migrate(db, { migrationsDir: dir })).resolves.toEqual({ applied: ['20991231000000_bad'] });
  });

  it('applies only the new migrations, in name order', async () => {
    const dir = await tempCopy();
    const existing = await migrationDirNames(dir);
    await migrate(db, { migrationsDir: dir });
    for (const name of ['20991231000002_second', '20991231000001_first']) {
      await fs.mkdir(path.join(dir, name));
      await fs.writeFile(path.join(dir, name, 'migration.sql'), `INSERT INTO "SelfTestRun" ("id", "trigger") VALUES (gen_random_uuid(), '${name}');\n`);
    }
    const result = await migrate(db, { migrationsDir: dir });
    expect(result.applied).toEqual(['20991231000001_first', '20991231000002_second']);
    const runs = await db.query<{ trigger: string }>('SELECT "trigger" FROM "SelfTestRun" ORDER BY "startedAt", "trigger"');
    expect(runs.rows.map((r) => r.trigger).sort()).toEqual(['20991231000001_first', '20991231000002_second']);
    expect(existing.length).toBeGreaterThan(0);
  });

  it('checks out one connection from a pool, runs everything on it and releases it', async () => {
    const released: unknown[] = [];
    let checkouts = 0;
    const pool: ConnectionPool = {
      async connect(): Promise<PooledConnection> {
        checkouts++;
        return { ...db, query: db.query.bind(db), exec: db.exec!.bind(db), release: (err?: unknown) => void released.push(err) };
      },
    };
    await expect(migrate(pool)).resolves.toMatchObject({ applied: expect.any(Array) });
    expect(checkouts).toBe(1);
    expect(released).toEqual([undefined]);
    // The advisory lock is not left behind.
    const locks = await db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1`, [MIGRATION_ADVISORY_LOCK_KEY]);
    expect(locks.rows).toEqual([]);

    // After a refusal the connection is destroyed rather than returned to the pool.
    await db.query(`UPDATE _prisma_migrations SET checksum = repeat('0', 64)`);
    await expect(migrate(pool)).rejects.toThrow(/modified/);
    expect(released[1]).toBeInstanceOf(Error);
  });

  it('reports a missing migrations directory clearly', async () => {
    await expect(migrate(db, { migrationsDir: path.join(os.tmpdir(), 'no-such-migrations-dir') })).rejects.toThrow(/Cannot read the migrations directory/);
  });
});

describe('migrator on the embedded server (connections multiplexed onto one PGlite session)', () => {
  it('two pools migrating at once: one applies, the other finds it done (the shared session makes the advisory lock reentrant)', async () => {
    const db = await PGlite.create();
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
    await server.start();
    const url = `postgresql://postgres@${server.getServerConn()}/postgres?sslmode=disable`;
    const pools = [new pg.Pool({ connectionString: url, max: 2 }), new pg.Pool({ connectionString: url, max: 2 })];
    try {
      const results = await Promise.all(pools.map((p) => migrate(p)));
      const names = await migrationDirNames(MIGRATIONS_DIR);
      expect(results.flatMap((r) => r.applied).sort()).toEqual(names);
      const rows = await pools[0].query('SELECT migration_name FROM _prisma_migrations');
      expect(rows.rowCount).toBe(names.length);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await server.stop();
      await db.close();
    }
  }, 60_000);
});

describe('prisma-schema-parser', () => {
  it('removes generator blocks and nothing else', () => {
    const schema = 'generator client {\n  provider = "x"\n  output = "y"\n}\n\ndatasource db {\n  provider = "postgresql"\n}\n\nmodel A {\n  id Int @id\n}\n';
    const stripped = stripGenerators(schema);
    expect(stripped).not.toContain('generator');
    expect(stripped).toContain('datasource db {\n  provider = "postgresql"\n}');
    expect(stripped).toContain('model A {\n  id Int @id\n}');
  });
});

// ---------------------------------------------------------------------------------------------
// The same on PostgreSQL (127.0.0.1:5432 on developer machines and CI; skipped when unreachable).

const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const postgresReachable = await (async () => {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!postgresReachable)('on PostgreSQL', () => {
  const schema = `drift_${process.pid}_${Date.now()}`;
  const pools: pg.Pool[] = [];
  let admin: pg.Client;
  const newPool = () => {
    const pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${schema}`, max: 3 });
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('two instances starting at once: one migrates, the other waits and finds nothing to do; the result matches schema.prisma', async () => {
    const [a, b] = [newPool(), newPool()];
    const results = await Promise.all([migrate(a), migrate(b)]);
    const names = await migrationDirNames(MIGRATIONS_DIR);
    expect(results.map((r) => r.applied).sort((x, y) => y.length - x.length)).toEqual([names, []]);
    const rows = await a.query('SELECT migration_name FROM _prisma_migrations');
    expect(rows.rowCount).toBe(names.length);

    const diff = diffSchemas(expectedSchema(datamodel), await introspect(a));
    expect(diff, driftMessage(diff)).toEqual([]);
  });

  it('waits for the lock held by someone else (e.g. prisma migrate) and gives up with a clear error', async () => {
    const holder = new pg.Client({ connectionString: PG_URL });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_ADVISORY_LOCK_KEY]);
      const logs: string[] = [];
      await expect(migrate(newPool(), { lockTimeoutMs: 600, log: (m) => logs.push(m) })).rejects.toThrow(
        /Timed out after 600 ms waiting for the migration lock/,
      );
      expect(logs).toContain('another instance is migrating; waiting for the migration lock');
    } finally {
      await holder.end();
    }
  });

  it('a pg.Client and a pg.Pool are accepted as they are', async () => {
    const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      await expect(migrate(client)).resolves.toEqual({ applied: [] });
    } finally {
      await client.end();
    }
    const typed: Parameters<typeof migrate>[0][] = [newPool(), client];
    expect(typed).toHaveLength(2);
  });
});
