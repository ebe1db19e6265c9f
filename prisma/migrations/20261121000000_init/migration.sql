-- CreateEnum
CREATE TYPE "UserRole" AS ENUM ('admin', 'member');

-- CreateEnum
CREATE TYPE "FileType" AS ENUM ('pnl', 'performance');

-- CreateEnum
CREATE TYPE "FileStatus" AS ENUM ('uploaded', 'processing', 'processed', 'failed');

-- CreateEnum
CREATE TYPE "FlowTiming" AS ENUM ('start_of_day', 'end_of_day');

-- CreateEnum
CREATE TYPE "JobState" AS ENUM ('queued', 'running', 'completed', 'failed');

-- CreateEnum
CREATE TYPE "SelfTestStatus" AS ENUM ('running', 'passed', 'failed');

-- CreateTable
CREATE TABLE "Organization" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "matchThresholdBps" DECIMAL(12,4),
    "reviewThresholdBps" DECIMAL(12,4),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Organization_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "role" "UserRole" NOT NULL DEFAULT 'member',
    "passwordHash" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Membership" (
    "userId" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Membership_pkey" PRIMARY KEY ("userId","orgId")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "scopes" TEXT[],
    "expiresAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "lastUsedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Entity" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "entityName" TEXT NOT NULL,
    "accountCode" TEXT NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Entity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Valuation" (
    "id" UUID NOT NULL,
    "entityId" UUID NOT NULL,
    "date" DATE NOT NULL,
    "marketValue" DECIMAL(20,4) NOT NULL,
    "sourceFileId" UUID,

    CONSTRAINT "Valuation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CashTransaction" (
    "id" UUID NOT NULL,
    "entityId" UUID NOT NULL,
    "date" DATE NOT NULL,
    "amount" DECIMAL(20,4) NOT NULL,
    "timing" "FlowTiming" NOT NULL,
    "description" TEXT,
    "sourceFileId" UUID,
    "sourceLine" INTEGER,

    CONSTRAINT "CashTransaction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CustodianReturn" (
    "id" UUID NOT NULL,
    "entityId" UUID NOT NULL,
    "date" DATE NOT NULL,
    "returnValue" DECIMAL(20,12) NOT NULL,
    "sourceFileId" UUID,

    CONSTRAINT "CustodianReturn_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DailyReturn" (
    "id" UUID NOT NULL,
    "entityId" UUID NOT NULL,
    "date" DATE NOT NULL,
    "startDate" DATE NOT NULL,
    "beginValue" DECIMAL(20,4) NOT NULL,
    "endValue" DECIMAL(20,4) NOT NULL,
    "netFlow" DECIMAL(20,4) NOT NULL,
    "weightedFlow" DECIMAL(24,8) NOT NULL,
    "returnValue" DECIMAL(20,12),
    "nullReason" TEXT,
    "computedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DailyReturn_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UploadedFile" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "uploaderId" UUID,
    "fileName" TEXT NOT NULL,
    "fileType" "FileType" NOT NULL,
    "sizeBytes" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "blobKey" TEXT NOT NULL,
    "status" "FileStatus" NOT NULL DEFAULT 'uploaded',
    "rowCount" INTEGER,
    "errorCount" INTEGER NOT NULL DEFAULT 0,
    "statusDetail" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "processedAt" TIMESTAMPTZ(3),

    CONSTRAINT "UploadedFile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FileRowError" (
    "id" UUID NOT NULL,
    "fileId" UUID NOT NULL,
    "line" INTEGER NOT NULL,
    "column" TEXT,
    "message" TEXT NOT NULL,

    CONSTRAINT "FileRowError_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Job" (
    "id" UUID NOT NULL,
    "queue" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "state" "JobState" NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL DEFAULT 3,
    "runAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedAt" TIMESTAMPTZ(3),
    "lockedBy" TEXT,
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SelfTestRun" (
    "id" UUID NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" "SelfTestStatus" NOT NULL DEFAULT 'running',
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMPTZ(3),
    "durationMs" INTEGER,

    CONSTRAINT "SelfTestRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SelfTestCheck" (
    "id" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "passed" BOOLEAN NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "detail" TEXT,
    "position" INTEGER NOT NULL,

    CONSTRAINT "SelfTestCheck_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Organization_name_key" ON "Organization"("name");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "Membership_orgId_idx" ON "Membership"("orgId");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_prefix_key" ON "ApiKey"("prefix");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_secretHash_key" ON "ApiKey"("secretHash");

-- CreateIndex
CREATE INDEX "ApiKey_userId_idx" ON "ApiKey"("userId");

-- CreateIndex
CREATE INDEX "Entity_accountCode_idx" ON "Entity"("accountCode");

-- CreateIndex
CREATE UNIQUE INDEX "Entity_orgId_entityName_key" ON "Entity"("orgId", "entityName");

-- CreateIndex
CREATE UNIQUE INDEX "Entity_orgId_accountCode_key" ON "Entity"("orgId", "accountCode");

-- CreateIndex
CREATE UNIQUE INDEX "Valuation_entityId_date_key" ON "Valuation"("entityId", "date");

-- CreateIndex
CREATE INDEX "CashTransaction_entityId_date_idx" ON "CashTransaction"("entityId", "date");

-- CreateIndex
CREATE UNIQUE INDEX "CustodianReturn_entityId_date_key" ON "CustodianReturn"("entityId", "date");

-- CreateIndex
CREATE UNIQUE INDEX "DailyReturn_entityId_date_key" ON "DailyReturn"("entityId", "date");

-- CreateIndex
CREATE UNIQUE INDEX "UploadedFile_blobKey_key" ON "UploadedFile"("blobKey");

-- CreateIndex
CREATE INDEX "UploadedFile_orgId_status_idx" ON "UploadedFile"("orgId", "status");

-- CreateIndex
CREATE INDEX "UploadedFile_orgId_createdAt_idx" ON "UploadedFile"("orgId", "createdAt");

-- CreateIndex
CREATE INDEX "FileRowError_fileId_line_idx" ON "FileRowError"("fileId", "line");

-- CreateIndex
CREATE INDEX "Job_queue_state_runAt_idx" ON "Job"("queue", "state", "runAt");

-- CreateIndex
CREATE INDEX "SelfTestRun_startedAt_idx" ON "SelfTestRun"("startedAt");

-- CreateIndex
CREATE INDEX "SelfTestCheck_runId_idx" ON "SelfTestCheck"("runId");

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Entity" ADD CONSTRAINT "Entity_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Valuation" ADD CONSTRAINT "Valuation_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CashTransaction" ADD CONSTRAINT "CashTransaction_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustodianReturn" ADD CONSTRAINT "CustodianReturn_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DailyReturn" ADD CONSTRAINT "DailyReturn_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UploadedFile" ADD CONSTRAINT "UploadedFile_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UploadedFile" ADD CONSTRAINT "UploadedFile_uploaderId_fkey" FOREIGN KEY ("uploaderId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FileRowError" ADD CONSTRAINT "FileRowError_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "UploadedFile"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SelfTestCheck" ADD CONSTRAINT "SelfTestCheck_runId_fkey" FOREIGN KEY ("runId") REFERENCES "SelfTestRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
