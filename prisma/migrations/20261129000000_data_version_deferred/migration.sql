-- A transaction may defer the bump of one scope's data version to its end (docs/caching.md).
--
-- A data version's row stays locked from a transaction's first bump to its commit. The ingest's
-- load is a long transaction: bumping its organization with its first batch made every other
-- write to that organization (an upload, new thresholds, a second load of the same file) wait for
-- the whole load, and a writer that had locked a row the load updates later (the file's row) and
-- then waited on the version deadlocked with it. A transaction that names a scope in the setting
-- `gateway.deferred_data_version` (transaction-local: set_config(..., true)) is skipped by the
-- triggers for that scope and bumps it itself with "data_version_bump" right before COMMIT, so it
-- takes the version's row last and holds it for a moment. Other scopes it writes are bumped as
-- before. src/cache/data-versions.ts names the setting; src/ingest/ingest-service.ts uses it.

CREATE FUNCTION "data_version_bump"(scopes TEXT[]) RETURNS void LANGUAGE sql AS $bump$
  INSERT INTO "DataVersion" (scope, version)
  SELECT DISTINCT s, 1 FROM unnest(scopes) AS x(s) WHERE s IS NOT NULL ORDER BY 1
  ON CONFLICT (scope) DO UPDATE SET version = "DataVersion".version + 1
$bump$;

-- The same trigger functions (names, tables and scopes of 20261128100000_data_versions), now
-- through data_version_bump and without the deferred scope.
CREATE FUNCTION "data_version_reinstall"(tbl TEXT, scopes TEXT) RETURNS void LANGUAGE plpgsql AS $install$
BEGIN
  EXECUTE format(
    $fn$CREATE OR REPLACE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  PERFORM "data_version_bump"(ARRAY(
    SELECT s FROM (%s) AS x(s) WHERE s IS DISTINCT FROM current_setting('gateway.deferred_data_version', true)));
  RETURN NULL;
END
$body$$fn$, 'data_version_' || tbl, scopes);
END
$install$;

SELECT "data_version_reinstall"('Organization', $$SELECT 'o:' || id FROM changed$$);
SELECT "data_version_reinstall"('Entity', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_reinstall"('Valuation', $$SELECT DISTINCT 'o:' || e."orgId" FROM changed c JOIN "Entity" e ON e.id = c."entityId"$$);
SELECT "data_version_reinstall"('CashTransaction', $$SELECT DISTINCT 'o:' || e."orgId" FROM changed c JOIN "Entity" e ON e.id = c."entityId"$$);
SELECT "data_version_reinstall"('CustodianReturn', $$SELECT DISTINCT 'o:' || e."orgId" FROM changed c JOIN "Entity" e ON e.id = c."entityId"$$);
SELECT "data_version_reinstall"('DailyReturn', $$SELECT DISTINCT 'o:' || e."orgId" FROM changed c JOIN "Entity" e ON e.id = c."entityId"$$);
SELECT "data_version_reinstall"('Reconciliation', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_reinstall"('FxRate', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_reinstall"('BenchmarkLevel', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_reinstall"('UploadedFile', $$SELECT 'o:' || "orgId" FROM changed$$);
SELECT "data_version_reinstall"('FileRowError', $$SELECT DISTINCT 'o:' || f."orgId" FROM changed c JOIN "UploadedFile" f ON f.id = c."fileId"$$);
SELECT "data_version_reinstall"('FileRowWarning', $$SELECT DISTINCT 'o:' || f."orgId" FROM changed c JOIN "UploadedFile" f ON f.id = c."fileId"$$);
SELECT "data_version_reinstall"('Membership', $$SELECT 'u:' || "userId" FROM changed$$);
SELECT "data_version_reinstall"('Sticky', $$SELECT 'u:' || "userId" FROM changed$$);
SELECT "data_version_reinstall"('StickyVersion', $$SELECT DISTINCT 'u:' || s."userId" FROM changed c JOIN "Sticky" s ON s.id = c."stickyId"$$);
SELECT "data_version_reinstall"('LinkFolder', $$SELECT 'u:' || "userId" FROM changed$$);
SELECT "data_version_reinstall"('Link', $$SELECT 'u:' || "userId" FROM changed$$);

DROP FUNCTION "data_version_reinstall"(TEXT, TEXT);
