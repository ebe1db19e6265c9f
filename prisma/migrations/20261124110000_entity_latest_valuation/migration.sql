-- Each entity's latest valuation, kept on the entity by the ingest (src/returns/latest-valuation.ts)
-- in the load transaction, so that "the organization's largest entity by latest market value"
-- (GET /api/benchmark) is one index probe instead of a lookup per entity.

-- AlterTable
ALTER TABLE "Entity" ADD COLUMN "latestValuationDate" DATE,
ADD COLUMN "latestMarketValue" DECIMAL(20,4);

-- CreateIndex
CREATE INDEX "Entity_orgId_latestMarketValue_id_idx" ON "Entity"("orgId", "latestMarketValue" DESC, "id");

-- Backfill
UPDATE "Entity" e
   SET "latestValuationDate" = v.date, "latestMarketValue" = v."marketValue"
  FROM (SELECT DISTINCT ON ("entityId") "entityId", date, "marketValue" FROM "Valuation" ORDER BY "entityId", date DESC) v
 WHERE v."entityId" = e.id;
