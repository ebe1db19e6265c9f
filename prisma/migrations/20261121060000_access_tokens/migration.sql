-- CreateEnum
CREATE TYPE "ApiKeyKind" AS ENUM ('api_key', 'access_token');

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN "kind" "ApiKeyKind" NOT NULL DEFAULT 'api_key';

-- DropIndex
DROP INDEX "ApiKey_userId_idx";

-- CreateIndex
CREATE INDEX "ApiKey_userId_kind_idx" ON "ApiKey"("userId", "kind");
