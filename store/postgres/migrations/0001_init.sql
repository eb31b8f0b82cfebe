-- 0001: the first schema. Ids are compared byte by byte (COLLATE "C"), so
-- that lists come in the same id order as from the bolt store whatever the
-- database's locale. Records the API reads whole are JSON documents in
-- data; the columns beside them are what queries select and sort by.

CREATE TABLE applications (
	id         text COLLATE "C" PRIMARY KEY,
	created_at timestamptz NOT NULL,
	data       jsonb NOT NULL
);

CREATE TABLE api_keys (
	id             text COLLATE "C" PRIMARY KEY,
	application_id text COLLATE "C" NOT NULL,
	hash           bytea,
	created_at     timestamptz NOT NULL
);
CREATE INDEX api_keys_by_app ON api_keys (application_id, created_at, id);

CREATE TABLE accounts (
	id                text COLLATE "C" PRIMARY KEY,
	application_id    text COLLATE "C" NOT NULL,
	provider_type     text NOT NULL,
	email_lower       text NOT NULL,
	external_id_lower text NOT NULL,
	status            text NOT NULL,
	data              jsonb NOT NULL,
	CONSTRAINT accounts_email_key UNIQUE (application_id, provider_type, email_lower)
);
CREATE INDEX accounts_by_app ON accounts (application_id, id);

CREATE TABLE subscriptions (
	id             text COLLATE "C" PRIMARY KEY,
	application_id text COLLATE "C" NOT NULL,
	account_id     text COLLATE "C" NOT NULL,
	data           jsonb NOT NULL
);
CREATE INDEX subscriptions_by_app ON subscriptions (application_id, id);
CREATE INDEX subscriptions_by_account ON subscriptions (application_id, account_id, id);

-- A message with lease_owner '' is unclaimed; lease_expiry is then the
-- zero time. subscription_id is '' for the application's own endpoint.
CREATE TABLE outbox (
	id              text COLLATE "C" PRIMARY KEY,
	application_id  text COLLATE "C" NOT NULL,
	subscription_id text COLLATE "C" NOT NULL,
	event_type      text NOT NULL,
	payload         bytea,
	created_at      timestamptz NOT NULL,
	status          text NOT NULL,
	attempts        integer NOT NULL,
	next_attempt_at timestamptz NOT NULL,
	last_error      text NOT NULL,
	lease_owner     text NOT NULL,
	lease_expiry    timestamptz NOT NULL
);
-- Claims walk only pending messages, in due order, never the history.
CREATE INDEX outbox_pending ON outbox (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX outbox_pending_by_subscription ON outbox (subscription_id) WHERE status = 'pending' AND subscription_id <> '';
-- The sweep walks each finished status oldest first.
CREATE INDEX outbox_finished ON outbox (status, next_attempt_at) WHERE status <> 'pending';

CREATE TABLE delivery_attempts (
	id              text COLLATE "C" PRIMARY KEY,
	application_id  text COLLATE "C" NOT NULL,
	message_id      text COLLATE "C" NOT NULL,
	subscription_id text COLLATE "C" NOT NULL,
	event_type      text NOT NULL,
	attempt         integer NOT NULL,
	at              timestamptz NOT NULL,
	status_code     integer NOT NULL,
	latency_ns      bigint NOT NULL,
	error           text NOT NULL,
	expires_at      timestamptz NOT NULL
);
CREATE INDEX delivery_attempts_by_subscription ON delivery_attempts (application_id, subscription_id, id);
CREATE INDEX delivery_attempts_by_expiry ON delivery_attempts (expires_at);

CREATE TABLE oauth_flows (
	id             text COLLATE "C" PRIMARY KEY,
	application_id text COLLATE "C" NOT NULL,
	expires_at     timestamptz NOT NULL,
	data           jsonb NOT NULL
);
CREATE INDEX oauth_flows_by_app ON oauth_flows (application_id, expires_at);
CREATE INDEX oauth_flows_by_expiry ON oauth_flows (expires_at);

CREATE TABLE blobs (
	application_id text COLLATE "C" NOT NULL,
	key            text COLLATE "C" NOT NULL,
	data           bytea,
	expires_at     timestamptz NOT NULL,
	PRIMARY KEY (application_id, key)
);
CREATE INDEX blobs_by_expiry ON blobs (expires_at);
