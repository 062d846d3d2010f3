-- Agent sign-in a bank accepts (issue 12, item 5): TOTP two-factor, one-time sign-in tickets, the tenant's
-- OpenID Connect provider, and sessions that say where and how they were opened.

ALTER TABLE "users" ADD COLUMN "mfa_secret" TEXT;
ALTER TABLE "users" ADD COLUMN "mfa_enabled_at" TIMESTAMPTZ(3);
ALTER TABLE "users" ADD COLUMN "mfa_last_step" INTEGER;
ALTER TABLE "users" ADD COLUMN "oidc_subject" TEXT;
CREATE UNIQUE INDEX "users_tenant_id_oidc_subject_key" ON "users"("tenant_id", "oidc_subject");

ALTER TABLE "user_sessions" ADD COLUMN "last_used_at" TIMESTAMPTZ(3);
ALTER TABLE "user_sessions" ADD COLUMN "method" TEXT NOT NULL DEFAULT 'password';
ALTER TABLE "user_sessions" ADD COLUMN "ip_address" TEXT;
ALTER TABLE "user_sessions" ADD COLUMN "user_agent" TEXT;

CREATE TABLE "mfa_recovery_codes" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "mfa_recovery_codes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "mfa_recovery_codes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "mfa_recovery_codes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "mfa_recovery_codes_user_id_idx" ON "mfa_recovery_codes"("user_id");

CREATE TABLE "login_tickets" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "login_tickets_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "login_tickets_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "login_tickets_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "login_tickets_token_hash_key" ON "login_tickets"("token_hash");
CREATE INDEX "login_tickets_user_id_idx" ON "login_tickets"("user_id");

CREATE TABLE "oidc_configs" (
    "tenant_id" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret" TEXT NOT NULL,
    "allowed_domains" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "email_claim" TEXT NOT NULL DEFAULT 'email',
    "jit_role" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "oidc_configs_pkey" PRIMARY KEY ("tenant_id"),
    CONSTRAINT "oidc_configs_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
