-- The growth index of the daily returns (issue 28; src/returns/analytics/growth-index.ts): for each
-- DailyReturn, the product of (1 + r) from the close of chainStart (the entity's first valuation,
-- or the date of its latest null daily return) to the close of its date, kept at full precision.
-- A return over any period is then the ratio of two rows, so a period table reads a few rows, not
-- the history. Rows written before this migration have no factor; the first read of an entity's
-- periods or calendar fills them (src/returns/growth-index-store.ts), and the ingest's recompute
-- starts from the beginning while its anchor has none.

-- AlterTable
ALTER TABLE "DailyReturn" ADD COLUMN "growthFactor" DECIMAL,
ADD COLUMN "chainStart" DATE;
