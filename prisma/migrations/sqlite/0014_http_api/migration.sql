-- dotplan 0014 (sqlite): the HTTP API of `dotplan serve`: its tokens, each with a scope, and the Idempotency-Keys of create requests.
-- Released migrations are never edited: add a new folder instead.

-- A token is stored as the SHA-256 of its secret (hex), never the secret: a request's token is looked up
-- by that hash. Revoking sets revoked_at and keeps the row (who made it, when it was last used); a name is
-- unique among the live tokens only, so it may be given again once its token is revoked.
CREATE TABLE "tokens" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "secret_sha256" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,
    "last_used_at" BIGINT,
    "revoked_at" BIGINT
);
CREATE UNIQUE INDEX "tokens_secret_sha256_key" ON "tokens"("secret_sha256");
CREATE UNIQUE INDEX "tokens_name_key" ON "tokens"("name") WHERE "revoked_at" IS NULL;

-- The Idempotency-Key of each plan-creating request, per token (owner): claimed before the plan is made,
-- settled with its id after, so a retried request finds the plan the first one made (src/store/request-keys.ts).
CREATE TABLE "request_keys" (
    "owner" TEXT NOT NULL,
    "request_key" TEXT NOT NULL,
    "body_sha256" TEXT NOT NULL,
    "plan_id" TEXT,
    "created_at" BIGINT NOT NULL,
    CONSTRAINT "request_keys_pkey" PRIMARY KEY ("owner", "request_key")
);

-- Browser sessions of `dotplan serve`: a login exchanges a token for a random session id kept in an HttpOnly
-- cookie; only the id's SHA-256 is stored, with the token it stands for (revoking the token ends its sessions),
-- the CSRF value cookie-authenticated commands must send back, and when it expires.
CREATE TABLE "sessions" (
    "id_sha256" TEXT NOT NULL,
    "token_id" INTEGER NOT NULL,
    "csrf" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,
    "expires_at" BIGINT NOT NULL,
    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id_sha256")
);
