-- CreateEnum
CREATE TYPE "GenerationRunState" AS ENUM ('queued', 'running', 'completed', 'failed', 'cancelled');

-- CreateTable
CREATE TABLE "GenerationRun" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "state" "GenerationRunState" NOT NULL DEFAULT 'queued',
    "options" JSONB NOT NULL,
    "lastSequence" INTEGER NOT NULL DEFAULT 0,
    "summary" TEXT,
    "references" JSONB,
    "summaryProvider" TEXT,
    "failedAgents" TEXT[],
    "error" TEXT,
    "cancelRequestedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "GenerationRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GenerationEvent" (
    "runId" UUID NOT NULL,
    "sequence" INTEGER NOT NULL,
    "agent" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "progress" INTEGER NOT NULL,
    "message" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GenerationEvent_pkey" PRIMARY KEY ("runId","sequence")
);

-- CreateIndex
CREATE INDEX "GenerationRun_userId_createdAt_idx" ON "GenerationRun"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "GenerationRun_state_idx" ON "GenerationRun"("state");

-- AddForeignKey
ALTER TABLE "GenerationRun" ADD CONSTRAINT "GenerationRun_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GenerationEvent" ADD CONSTRAINT "GenerationEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "GenerationRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
