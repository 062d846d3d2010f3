-- Provider channels (issue: channels). A request that carries only a token (a Meta verify token, a Telegram secret
-- token, an Africa's Talking URL token) finds its channel by that token's SHA-256: the token itself stays encrypted.
ALTER TABLE "channels" ADD COLUMN "webhook_token_hash" TEXT;
CREATE INDEX "channels_type_webhook_token_hash_idx" ON "channels"("type", "webhook_token_hash");

-- Text-to-speech voices of a tenant; the voice channel speaks with the selected one.
CREATE TABLE "voices" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "speaking_rate" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "greeting" TEXT,
    "selected" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "voices_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "voices_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "voices_tenant_id_idx" ON "voices"("tenant_id");
-- At most one selected voice per tenant.
CREATE UNIQUE INDEX "voices_one_selected_per_tenant" ON "voices"("tenant_id") WHERE "selected";
