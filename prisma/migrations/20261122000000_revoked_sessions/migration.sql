-- Sessions (sso_token JWTs) ended by sign-out before they expire. Every instance refuses a token
-- listed here; a row is useless once the token has expired and is then deleted.

-- CreateTable
CREATE TABLE "RevokedSession" (
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RevokedSession_pkey" PRIMARY KEY ("tokenHash")
);

-- CreateIndex
CREATE INDEX "RevokedSession_expiresAt_idx" ON "RevokedSession"("expiresAt");
