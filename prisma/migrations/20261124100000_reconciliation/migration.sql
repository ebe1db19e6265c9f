-- The reconciliation of custodian-reported and computed returns, kept as data so that the
-- comparison page reads one index range instead of joining an organization's whole history.
-- One row per (entity, date) present on either side, for entities the custodian reports on.
-- Rows are replaced by the ingest in the transaction that changes either side
-- (src/returns/reconciliation.ts); `status` follows the organization's thresholds in force,
-- recorded on the organization as "reconciledMatchBps"/"reconciledReviewBps" (a change of
-- thresholds re-classifies the organization's rows; see docs/returns-and-csv.md).

-- The classification rule of classifyDifference (src/returns/dietz.ts), in SQL. A test pins the two
-- together on every boundary case.
CREATE FUNCTION "reconciliation_status"(custodian NUMERIC, computed NUMERIC, match_bps NUMERIC, review_bps NUMERIC)
RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN custodian IS NULL OR computed IS NULL THEN 'investigate'
    WHEN abs((computed - custodian) * 10000) <= match_bps THEN 'match'
    WHEN sign(custodian) * sign(computed) < 0 THEN 'investigate'
    WHEN abs((computed - custodian) * 10000) <= review_bps THEN 'review'
    ELSE 'investigate'
  END
$$;

-- AlterTable
ALTER TABLE "Organization" ADD COLUMN "reconciledMatchBps" DECIMAL(12,4),
ADD COLUMN "reconciledReviewBps" DECIMAL(12,4);

-- CreateTable
CREATE TABLE "Reconciliation" (
    "entityId" UUID NOT NULL,
    "date" DATE NOT NULL,
    "orgId" UUID NOT NULL,
    "accountCode" TEXT NOT NULL,
    "custodianReturn" DECIMAL(20,12),
    "computedReturn" DECIMAL(20,12),
    "computedNullReason" TEXT,
    "status" TEXT NOT NULL,

    CONSTRAINT "Reconciliation_pkey" PRIMARY KEY ("entityId","date")
);

-- CreateIndex
CREATE INDEX "Reconciliation_orgId_date_accountCode_entityId_idx" ON "Reconciliation"("orgId", "date" DESC, "accountCode" DESC, "entityId" DESC);
CREATE INDEX "Reconciliation_orgId_status_date_accountCode_entityId_idx" ON "Reconciliation"("orgId", "status", "date" DESC, "accountCode" DESC, "entityId" DESC);
CREATE INDEX "Reconciliation_orgId_accountCode_date_idx" ON "Reconciliation"("orgId", "accountCode", "date" DESC);

-- AddForeignKey
ALTER TABLE "Reconciliation" ADD CONSTRAINT "Reconciliation_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill, classified with the organization's own thresholds or the documented defaults (1 and
-- 10 bps); a service configured otherwise re-classifies at start (reconciled* differ from its).
UPDATE "Organization" SET "reconciledMatchBps" = COALESCE("matchThresholdBps", 1), "reconciledReviewBps" = COALESCE("reviewThresholdBps", 10);

INSERT INTO "Reconciliation" ("entityId", "date", "orgId", "accountCode", "custodianReturn", "computedReturn", "computedNullReason", "status")
SELECT p."entityId", p.date, e."orgId", e."accountCode", p.custodian, p.computed, p."computedNullReason",
       "reconciliation_status"(p.custodian, p.computed, o."reconciledMatchBps", o."reconciledReviewBps")
  FROM (
    SELECT COALESCE(c."entityId", d."entityId") AS "entityId", COALESCE(c.date, d.date) AS date,
           c."returnValue" AS custodian, d."returnValue" AS computed, d."nullReason" AS "computedNullReason"
      FROM "CustodianReturn" c
      FULL OUTER JOIN "DailyReturn" d ON d."entityId" = c."entityId" AND d.date = c.date
  ) p
  JOIN "Entity" e ON e.id = p."entityId"
  JOIN "Organization" o ON o.id = e."orgId"
 WHERE EXISTS (SELECT 1 FROM "CustodianReturn" x WHERE x."entityId" = p."entityId");
