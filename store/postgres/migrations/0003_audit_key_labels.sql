-- 0003: API key labels and the audit log of operator changes. Audit
-- entries outlive their application, so there is no foreign key; ids
-- sort by time.

ALTER TABLE api_keys ADD COLUMN label text NOT NULL DEFAULT '';

CREATE TABLE audit_log (
	id             text COLLATE "C" PRIMARY KEY,
	application_id text COLLATE "C" NOT NULL,
	at             timestamptz NOT NULL,
	data           jsonb NOT NULL
);
CREATE INDEX audit_log_by_app ON audit_log (application_id, id);
CREATE INDEX audit_log_by_at ON audit_log (at);
