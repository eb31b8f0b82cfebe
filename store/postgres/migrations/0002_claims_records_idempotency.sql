-- 0002: API key use, subscription claims for replicas (next_check_at is
-- each subscription's due time and so its claim's lease), records of the
-- RecordStore, and Idempotency-Key records.

ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00';

ALTER TABLE subscriptions ADD COLUMN next_check_at timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00';
UPDATE subscriptions SET next_check_at = (data->>'nextCheckAt')::timestamptz WHERE data ? 'nextCheckAt';
CREATE INDEX subscriptions_by_next_check ON subscriptions (next_check_at, id);

-- Record versions come from one sequence, which never goes back, so that
-- a key never gets a version it had before, even after a delete.
CREATE SEQUENCE record_versions;
CREATE TABLE records (
	application_id text COLLATE "C" NOT NULL,
	account_id     text COLLATE "C" NOT NULL,
	collection     text COLLATE "C" NOT NULL,
	key            text COLLATE "C" NOT NULL,
	data           bytea,
	version        bigint NOT NULL,
	PRIMARY KEY (application_id, account_id, collection, key)
);

-- response_status is NULL while the first attempt runs.
CREATE TABLE idempotency_keys (
	application_id  text COLLATE "C" NOT NULL,
	key             text COLLATE "C" NOT NULL,
	fingerprint     text NOT NULL,
	claim           text NOT NULL,
	created_at      timestamptz NOT NULL,
	lease_expiry    timestamptz NOT NULL,
	expires_at      timestamptz NOT NULL,
	response_status integer,
	response_code   text,
	response_body   bytea,
	PRIMARY KEY (application_id, key)
);
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
