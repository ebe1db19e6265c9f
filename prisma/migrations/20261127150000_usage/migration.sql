-- Per-client usage (src/usage, docs/usage-and-deprecation.md): one row per credential, front,
-- operation and hour or day. Every instance aggregates in memory and adds its counts with an
-- upsert (`requests = requests + excluded.requests`), so instances sharing the table never count
-- a request twice. `latencyBuckets` is a fixed log-spaced histogram (src/usage/latency-histogram.ts)
-- added bucket by bucket; `errorCodes` maps an error code to its count. No foreign key: a flush
-- must not fail because a credential or its user was deleted meanwhile; retention purges the rows.

-- CreateTable
CREATE TABLE "UsageBucket" (
    "granularity" TEXT NOT NULL,
    "bucketStart" TIMESTAMPTZ(3) NOT NULL,
    "credentialKind" TEXT NOT NULL,
    "credentialId" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "front" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "requests" INTEGER NOT NULL,
    "errors" INTEGER NOT NULL,
    "rateLimited" INTEGER NOT NULL,
    "errorCodes" JSONB NOT NULL,
    "latencyBuckets" INTEGER[],
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "UsageBucket_pkey" PRIMARY KEY ("granularity","bucketStart","credentialKind","credentialId","front","operation")
);

-- Who called a deprecated field or route (subjectKind field or route), per credential, front and
-- operation: GET /api/usage/deprecated lists those of the last 30 days.

-- CreateTable
CREATE TABLE "DeprecatedCall" (
    "subjectKind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "credentialKind" TEXT NOT NULL,
    "credentialId" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "front" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "calls" INTEGER NOT NULL,
    "firstCalledAt" TIMESTAMPTZ(3) NOT NULL,
    "lastCalledAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "DeprecatedCall_pkey" PRIMARY KEY ("subjectKind","subject","credentialKind","credentialId","front","operation")
);

-- CreateIndex
CREATE INDEX "UsageBucket_userId_granularity_bucketStart_idx" ON "UsageBucket"("userId", "granularity", "bucketStart");

-- CreateIndex
CREATE INDEX "DeprecatedCall_lastCalledAt_idx" ON "DeprecatedCall"("lastCalledAt");
