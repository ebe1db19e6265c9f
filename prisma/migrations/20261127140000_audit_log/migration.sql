-- The audit log (src/audit, docs/audit.md): every mutation on every front, credential and sign-in
-- events, refusals. Rows are only ever inserted by the application (and deleted by retention);
-- `hash` is sha256(previous event's hash + canonical JSON of this event) within the event's chain
-- (its organization's id, or "none"), so `npm run cli -- audit:verify` finds an edited or deleted row.

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" UUID NOT NULL,
    "chain" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "occurredAt" TIMESTAMPTZ(3) NOT NULL,
    "organizationId" UUID,
    "actorId" UUID,
    "credentialKind" TEXT,
    "credentialId" TEXT,
    "credentialPrefix" TEXT,
    "front" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "outcome" TEXT NOT NULL,
    "clientAddress" TEXT,
    "userAgent" TEXT,
    "requestId" TEXT,
    "traceId" TEXT,
    "variables" JSONB,
    "hash" TEXT NOT NULL,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable: each chain's head (its last event) and where retention cut it.
CREATE TABLE "AuditChain" (
    "chain" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "purgedSeq" BIGINT NOT NULL,
    "purgedHash" TEXT NOT NULL,

    CONSTRAINT "AuditChain_pkey" PRIMARY KEY ("chain")
);

-- CreateIndex
CREATE UNIQUE INDEX "AuditEvent_chain_seq_key" ON "AuditEvent"("chain", "seq");

-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_occurredAt_idx" ON "AuditEvent"("organizationId", "occurredAt");

-- CreateIndex
CREATE INDEX "AuditEvent_actorId_occurredAt_idx" ON "AuditEvent"("actorId", "occurredAt");

-- CreateIndex
CREATE INDEX "AuditEvent_occurredAt_idx" ON "AuditEvent"("occurredAt");
