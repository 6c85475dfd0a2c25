-- An API token may expire: a token left in an old CI configuration or on a lost laptop stops
-- working by itself. Tokens created before this have none (they work until revoked).
ALTER TABLE "ApiToken" ADD COLUMN "expiresAt" TIMESTAMPTZ(3);
