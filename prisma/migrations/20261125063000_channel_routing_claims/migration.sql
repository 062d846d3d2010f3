-- Routing claims (issue 10): saving a channel claims its provider account without proving it owns it, so
-- several tenants' channels may claim one account. The claim a provider delivery has proven holds the account
-- in "verified_routing_key"; the unique index keeps at most one proven claim per (type, account).
DROP INDEX "channels_type_routing_key_key";
CREATE INDEX "channels_type_routing_key_idx" ON "channels"("type", "routing_key");
ALTER TABLE "channels" ADD COLUMN "verified_routing_key" TEXT;
CREATE UNIQUE INDEX "channels_type_verified_routing_key_key" ON "channels"("type", "verified_routing_key");
-- Channels saved before claims existed were each the only one of their account: they keep receiving its traffic.
UPDATE "channels" SET "verified_routing_key" = "routing_key"
  WHERE "type" NOT IN ('widget', 'botmsg') AND NOT ("type" = 'sms' AND "settings"->>'provider' = 'africastalking');
