-- The audit writer's one-statement append (issue 26; src/audit/recorder.ts, docs/audit.md#cost).
-- The writer remembers the heads of the chains it wrote last; with them it hashes the next batch
-- and appends it in one call: the heads move only if they are still where the writer left them,
-- and the events are inserted in the same statement. Anyone else having moved a head (another
-- instance, the CLI, retention) makes the call fail with SQLSTATE 40001 and change nothing; the
-- writer then locks and reads the heads in a transaction, as it does for a chain it has not seen.
-- One statement instead of a transaction of four matters most on the embedded database, where each
-- statement runs on the service's own thread and a transaction holds the database's one session.

CREATE FUNCTION "audit_append"(events JSON, chains TEXT[], expected_seqs BIGINT[], seqs BIGINT[], hashes TEXT[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  moved INTEGER;
BEGIN
  UPDATE "AuditChain" AS c SET seq = h.seq, hash = h.hash
    FROM unnest(chains, expected_seqs, seqs, hashes) AS h(chain, expected_seq, seq, hash)
   WHERE c.chain = h.chain AND c.seq = h.expected_seq;
  GET DIAGNOSTICS moved = ROW_COUNT;
  IF moved <> cardinality(chains) THEN
    RAISE EXCEPTION 'audit chain head moved' USING ERRCODE = '40001';
  END IF;
  INSERT INTO "AuditEvent" (id, chain, seq, "occurredAt", "organizationId", "actorId", "credentialKind", "credentialId", "credentialPrefix",
    front, operation, "targetType", "targetId", outcome, "clientAddress", "userAgent", "requestId", "traceId", variables, hash)
  SELECT id, chain, seq, "occurredAt", "organizationId", "actorId", "credentialKind", "credentialId", "credentialPrefix",
    front, operation, "targetType", "targetId", outcome, "clientAddress", "userAgent", "requestId", "traceId", variables, hash
  FROM json_to_recordset(events) AS e(id uuid, chain text, seq bigint, "occurredAt" timestamptz, "organizationId" uuid, "actorId" uuid,
    "credentialKind" text, "credentialId" text, "credentialPrefix" text, front text, operation text, "targetType" text, "targetId" text,
    outcome text, "clientAddress" text, "userAgent" text, "requestId" text, "traceId" text, variables jsonb, hash text);
END
$$;
