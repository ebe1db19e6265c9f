-- The embedded database's append by COPY (issue 26; src/audit/recorder.ts, docs/audit.md#cost).
-- PGlite takes no COPY FROM STDIN over its socket, and its INSERT ... SELECT FROM json_to_recordset
-- (audit_append) costs the service's own thread about 45 us an event against about 25 us by COPY
-- (500-event batches, measured). The embedded database runs in the service's process and reads its
-- data directory from the service's disk, so the writer leaves a batch in COPY's text format in
-- <data directory>/audit-spool/<file> and appends it in one call: the heads move only if they are
-- still where the writer left them (else SQLSTATE 40001 and nothing changes, as audit_append), then
-- the file is COPYed. Only a file of that folder, named by the writer (a UUID), is read.
-- PostgreSQL has the function too but is never asked to run it (it takes batches by COPY FROM STDIN).

CREATE FUNCTION "audit_append_file"(file TEXT, chains TEXT[], expected_seqs BIGINT[], seqs BIGINT[], hashes TEXT[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  moved INTEGER;
BEGIN
  IF file !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tsv$' THEN
    RAISE EXCEPTION 'audit_append_file: % is not an audit batch file', file USING ERRCODE = '22023';
  END IF;
  UPDATE "AuditChain" AS c SET seq = h.seq, hash = h.hash
    FROM unnest(chains, expected_seqs, seqs, hashes) AS h(chain, expected_seq, seq, hash)
   WHERE c.chain = h.chain AND c.seq = h.expected_seq;
  GET DIAGNOSTICS moved = ROW_COUNT;
  IF moved <> cardinality(chains) THEN
    RAISE EXCEPTION 'audit chain head moved' USING ERRCODE = '40001';
  END IF;
  EXECUTE format(
    'COPY "AuditEvent" (id, chain, seq, "occurredAt", "organizationId", "actorId", "credentialKind", "credentialId", "credentialPrefix",
       front, operation, "targetType", "targetId", outcome, "clientAddress", "userAgent", "requestId", "traceId", variables, hash)
     FROM %L WITH (FORMAT text, ENCODING ''UTF8'')',
    current_setting('data_directory') || '/audit-spool/' || file);
END
$$;
