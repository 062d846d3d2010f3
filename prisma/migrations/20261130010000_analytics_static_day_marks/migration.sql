-- The day marks of conversations, feedback and surveys in static statements, which PL/pgSQL plans once per table and
-- keeps: the dynamic EXECUTE was parsed and planned again on every insert, on the path of every first message (a
-- sixth of that statement's time on the embedded database; test/bench/README.md, chat). Each branch is planned only
-- for the tables whose triggers reach it.
CREATE OR REPLACE FUNCTION "analytics_mark_own_day"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_ARGV[0] = 'asked_at' THEN
    PERFORM analytics_mark(tenant_id, array_agg(DISTINCT analytics_day(asked_at)), TG_OP = 'DELETE')
       FROM changed GROUP BY tenant_id;
  ELSE
    PERFORM analytics_mark(tenant_id, array_agg(DISTINCT analytics_day(created_at)), TG_OP = 'DELETE')
       FROM changed GROUP BY tenant_id;
  END IF;
  RETURN NULL;
END;
$$;
