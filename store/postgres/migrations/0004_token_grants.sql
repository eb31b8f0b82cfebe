-- 0004: grants of scoped tokens (package scopedtoken). data is the
-- grant's JSON, with the SHA-256 hash of the token's secret and never the
-- secret; a grant goes with its application.

CREATE TABLE token_grants (
	id             text COLLATE "C" PRIMARY KEY,
	application_id text COLLATE "C" NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
	data           bytea NOT NULL,
	expires_at     timestamptz NOT NULL
);
CREATE INDEX token_grants_by_app ON token_grants (application_id);
CREATE INDEX token_grants_by_expiry ON token_grants (expires_at);
