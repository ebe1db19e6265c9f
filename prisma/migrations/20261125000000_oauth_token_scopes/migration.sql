-- The scopes an OAuth access token was issued with: a refresh may ask for fewer than its grant
-- has (RFC 6749 §6), and the token must then carry only those. NULL on codes, refresh tokens
-- (a refresh may ask for any of the grant's scopes) and access tokens issued before this column
-- (they carry their grant's scopes).

-- AlterTable
ALTER TABLE "OAuthToken" ADD COLUMN "scopes" TEXT[];
