-- Retention and erasure (issue 12, item 4): legal holds that keep what they cover from deletion, and the anchors
-- from which a pruned audit trail is verified.
CREATE TABLE "legal_holds" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "conversation_id" TEXT,
    "channel" TEXT,
    "customer_id" TEXT,
    "customer_phone" TEXT,
    "reason" TEXT NOT NULL,
    "placed_by" TEXT NOT NULL,
    "placed_by_label" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "released_at" TIMESTAMPTZ(3),
    "released_by" TEXT,
    "release_reason" TEXT,
    CONSTRAINT "legal_holds_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "legal_holds_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "legal_holds_tenant_id_released_at_idx" ON "legal_holds"("tenant_id", "released_at");

-- No foreign key to tenants, like audit_records: an anchor is part of the trail.
CREATE TABLE "audit_anchors" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "through_seq" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "pruned" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_anchors_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "audit_anchors_tenant_id_through_seq_key" ON "audit_anchors"("tenant_id", "through_seq");

-- An anchor is never changed or removed by the application either.
CREATE TRIGGER "audit_anchors_no_change" BEFORE UPDATE OR DELETE ON "audit_anchors"
  FOR EACH ROW EXECUTE FUNCTION "audit_records_append_only"();
CREATE TRIGGER "audit_anchors_no_truncate" BEFORE TRUNCATE ON "audit_anchors"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_records_append_only"();

-- Records stay append-only, with one exception: the oldest records of a tenant, up to an anchor that names the
-- hash of the last of them, may be removed (retention). What remains then verifies from that anchor.
CREATE FUNCTION "audit_records_prune_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND EXISTS (
       SELECT 1 FROM audit_anchors a WHERE a.tenant_id = OLD.tenant_id AND a.through_seq >= OLD.seq) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit records are append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
DROP TRIGGER "audit_records_no_change" ON "audit_records";
CREATE TRIGGER "audit_records_no_change" BEFORE UPDATE OR DELETE ON "audit_records"
  FOR EACH ROW EXECUTE FUNCTION "audit_records_prune_only"();
