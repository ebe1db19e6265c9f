-- Issue 29: data versions for exact response caching (docs/caching.md).
-- One counter per scope: `o:<organization id>` for an organization's returns data, `u:<user id>`
-- for a user's workspace data. Every statement that writes a table a cached read depends on bumps
-- the counters of the scopes its rows belong to, in an AFTER ... FOR EACH STATEMENT trigger: in the
-- same transaction as the write, whoever writes (the service on any instance, the ingest worker,
-- the CLI, a hand-written statement). A cached answer is keyed by the counters it was read under,
-- so a committed write changes the key of every answer it could change.
-- Statement triggers (not row triggers): an ingest writing thousands of rows in one statement
-- bumps each of its scopes once. Each table gets its own trigger function (static SQL, planned
-- once per session) reading the statement's transition table `changed`.
-- A row's scope column (userId, orgId, entityId, ...) never changes after insert in this schema,
-- so an UPDATE bumps the scopes of the new rows only.

CREATE TABLE "DataVersion" (
    "scope" TEXT NOT NULL,
    "version" BIGINT NOT NULL,

    CONSTRAINT "DataVersion_pkey" PRIMARY KEY ("scope")
);

CREATE FUNCTION "data_version_install"(tbl TEXT, scopes TEXT) RETURNS void LANGUAGE plpgsql AS $install$
DECLARE
  fn TEXT := 'data_version_' || tbl;
BEGIN
  EXECUTE format(
    $fn$CREATE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  INSERT INTO "DataVersion" (scope, version)
  SELECT DISTINCT s, 1 FROM (%s) AS x(s) WHERE s IS NOT NULL ORDER BY 1
  ON CONFLICT (scope) DO UPDATE SET version = "DataVersion".version + 1;
  RETURN NULL;
END
$body$$fn$, fn, scopes);
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION %I()', tbl || '_version_insert', tbl, fn);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION %I()', tbl || '_version_update', tbl, fn);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION %I()', tbl || '_version_delete', tbl, fn);
END
$install$;

-- An organization's returns data: its thresholds, entities and their series, reconciliations, rates, benchmark levels, files.
SELECT "data_version_install"('Organization', $$SELECT 'o:' || id FROM changed$$);
SELECT "data_version_install"('Entity', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_install"('Valuation', $$SELECT DISTINCT 'o:' || e."orgId" FROM changed c JOIN "Entity" e ON e.id = c."entityId"$$);
SELECT "data_version_install"('CashTransaction', $$SELECT DISTINCT 'o:' || e."orgId" FROM changed c JOIN "Entity" e ON e.id = c."entityId"$$);
SELECT "data_version_install"('CustodianReturn', $$SELECT DISTINCT 'o:' || e."orgId" FROM changed c JOIN "Entity" e ON e.id = c."entityId"$$);
SELECT "data_version_install"('DailyReturn', $$SELECT DISTINCT 'o:' || e."orgId" FROM changed c JOIN "Entity" e ON e.id = c."entityId"$$);
SELECT "data_version_install"('Reconciliation', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_install"('FxRate', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_install"('BenchmarkLevel', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_install"('UploadedFile', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_install"('FileRowError', $$SELECT DISTINCT 'o:' || f."orgId" FROM changed c JOIN "UploadedFile" f ON f.id = c."fileId"$$);
SELECT "data_version_install"('FileRowWarning', $$SELECT DISTINCT 'o:' || f."orgId" FROM changed c JOIN "UploadedFile" f ON f.id = c."fileId"$$);

-- A user's workspace data, and their memberships (which organizations' data they see).
SELECT "data_version_install"('Membership', $$SELECT 'u:' || "userId" FROM changed$$);
SELECT "data_version_install"('Sticky', $$SELECT 'u:' || "userId" FROM changed$$);
SELECT "data_version_install"('StickyVersion', $$SELECT DISTINCT 'u:' || s."userId" FROM changed c JOIN "Sticky" s ON s.id = c."stickyId"$$);
SELECT "data_version_install"('LinkFolder', $$SELECT 'u:' || "userId" FROM changed$$);
SELECT "data_version_install"('Link', $$SELECT 'u:' || "userId" FROM changed$$);

DROP FUNCTION "data_version_install"(TEXT, TEXT);
