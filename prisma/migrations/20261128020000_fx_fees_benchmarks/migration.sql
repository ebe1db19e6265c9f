-- Issue 28, second half (docs/returns-and-csv.md#reported-returns): currencies, fees and benchmarks.
-- - Two upload types: `fx` (exchange rates) and `benchmark` (index levels), each stored per
--   organization and upserted by its key, like the other formats.
-- - A cash flow's type: `external` (the default, every flow loaded before), `fee` or `income`.
--   Only external flows are Modified Dietz flows; fees make the net-of-fee return (the stored
--   returnValue) differ from the gross-of-fee one.
-- - DailyReturn keeps the fees of its sub-period, the gross-of-fee return and its own growth index.
--   Rows written before this migration have none: no flow was a fee then, so gross = net there and
--   a null grossGrowthFactor reads as the net one (src/returns/growth-index-store.ts).
-- - An entity's benchmark: the name of a series of BenchmarkLevel rows of its organization.
-- ALTER TYPE .. ADD VALUE inside the migration's transaction is fine from PostgreSQL 12 on, as
-- long as nothing in the same transaction uses the new values (nothing here does).

ALTER TYPE "FileType" ADD VALUE 'fx';
ALTER TYPE "FileType" ADD VALUE 'benchmark';

CREATE TYPE "FlowType" AS ENUM ('external', 'fee', 'income');

ALTER TABLE "CashTransaction" ADD COLUMN "flowType" "FlowType" NOT NULL DEFAULT 'external';

ALTER TABLE "DailyReturn" ADD COLUMN "fees" DECIMAL(20,4),
ADD COLUMN "grossReturnValue" DECIMAL(20,12),
ADD COLUMN "grossGrowthFactor" DECIMAL;

ALTER TABLE "Entity" ADD COLUMN "benchmark" TEXT;

CREATE TABLE "FxRate" (
    "orgId" UUID NOT NULL,
    "base" TEXT NOT NULL,
    "quote" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "rate" DECIMAL(24,12) NOT NULL,
    "sourceFileId" UUID,
    "sourceLine" INTEGER,
    CONSTRAINT "FxRate_pkey" PRIMARY KEY ("orgId", "base", "quote", "date"),
    CONSTRAINT "FxRate_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "BenchmarkLevel" (
    "orgId" UUID NOT NULL,
    "benchmark" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "level" DECIMAL(24,8) NOT NULL,
    "sourceFileId" UUID,
    "sourceLine" INTEGER,
    CONSTRAINT "BenchmarkLevel_pkey" PRIMARY KEY ("orgId", "benchmark", "date"),
    CONSTRAINT "BenchmarkLevel_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
