/**
 * Forward-only migrations of the controller database, applied in order and keyed by
 * `meta.schema_version`. Never edit a shipped migration; append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE jobs (
    job_id TEXT PRIMARY KEY,
    parent_id TEXT,
    root_id TEXT NOT NULL,
    user TEXT NOT NULL,
    depth INTEGER NOT NULL,
    request BLOB NOT NULL,
    state INTEGER NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    exit_code INTEGER NOT NULL DEFAULT 0,
    submitted_at_ms INTEGER NOT NULL,
    root_submitted_at_ms INTEGER NOT NULL,
    started_at_ms INTEGER NOT NULL DEFAULT 0,
    finished_at_ms INTEGER NOT NULL DEFAULT 0,
    seq INTEGER NOT NULL,
    scheduling_deadline_ms INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX jobs_parent ON jobs(parent_id);
  CREATE INDEX jobs_state ON jobs(state);
  CREATE TABLE tasks (
    task_id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL REFERENCES jobs(job_id) ON DELETE CASCADE,
    task_index INTEGER NOT NULL,
    state INTEGER NOT NULL,
    current_attempt_id INTEGER NOT NULL DEFAULT -1,
    failure_count INTEGER NOT NULL DEFAULT 0,
    preemption_count INTEGER NOT NULL DEFAULT 0,
    max_retries_failure INTEGER NOT NULL,
    max_retries_preemption INTEGER NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    exit_code INTEGER NOT NULL DEFAULT 0,
    started_at_ms INTEGER NOT NULL DEFAULT 0,
    finished_at_ms INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX tasks_job ON tasks(job_id, task_index);
  CREATE INDEX tasks_state ON tasks(state);
  CREATE TABLE attempts (
    task_id TEXT NOT NULL REFERENCES tasks(task_id) ON DELETE CASCADE,
    attempt_id INTEGER NOT NULL,
    attempt_uid TEXT NOT NULL UNIQUE,
    worker_id TEXT NOT NULL,
    state INTEGER NOT NULL,
    stop_reason INTEGER NOT NULL DEFAULT 0,
    exit_code INTEGER NOT NULL DEFAULT 0,
    error TEXT NOT NULL DEFAULT '',
    created_at_ms INTEGER NOT NULL,
    started_at_ms INTEGER NOT NULL DEFAULT 0,
    finished_at_ms INTEGER NOT NULL DEFAULT 0,
    is_worker_failure INTEGER NOT NULL DEFAULT 0,
    gang TEXT,
    usage TEXT,
    ports TEXT,
    PRIMARY KEY (task_id, attempt_id)
  );
  CREATE INDEX attempts_worker ON attempts(worker_id, state);
  CREATE TABLE workers (
    worker_id TEXT PRIMARY KEY,
    boot_id TEXT NOT NULL,
    address TEXT NOT NULL,
    metadata BLOB NOT NULL,
    attributes TEXT NOT NULL,
    registered_at_ms INTEGER NOT NULL,
    registration_seq INTEGER NOT NULL,
    last_contact_ms INTEGER NOT NULL,
    first_failure_ms INTEGER NOT NULL DEFAULT 0,
    consecutive_failures INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE endpoints (
    endpoint_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    task_id TEXT NOT NULL REFERENCES tasks(task_id) ON DELETE CASCADE,
    attempt_id INTEGER NOT NULL,
    metadata TEXT NOT NULL,
    registered_at_ms INTEGER NOT NULL
  );
  CREATE INDEX endpoints_name ON endpoints(name);
  CREATE INDEX endpoints_task ON endpoints(task_id);
  CREATE TABLE logs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    attempt_id INTEGER NOT NULL,
    attempt_uid TEXT NOT NULL,
    seq INTEGER NOT NULL,
    timestamp_ms INTEGER NOT NULL,
    source INTEGER NOT NULL,
    level INTEGER NOT NULL,
    data TEXT NOT NULL,
    UNIQUE (attempt_uid, seq)
  );
  CREATE INDEX logs_task ON logs(task_id, id);
  CREATE INDEX logs_job ON logs(job_id, id);
  CREATE TABLE bundles (
    bundle_id TEXT PRIMARY KEY,
    size_bytes INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    last_used_ms INTEGER NOT NULL
  );
  `,  // Priority bands, user budgets and reservations: the band stamped on each attempt at
  // assignment, per-user limits, and the workers each reservation entry (holder task) claims.
  `
  ALTER TABLE attempts ADD COLUMN priority_band INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE user_budgets (
    user TEXT PRIMARY KEY,
    budget_limit INTEGER NOT NULL DEFAULT 0,
    max_band INTEGER NOT NULL DEFAULT 0,
    updated_at_ms INTEGER NOT NULL
  );
  CREATE TABLE reservation_claims (
    holder_task_id TEXT PRIMARY KEY REFERENCES tasks(task_id) ON DELETE CASCADE,
    job_id TEXT NOT NULL,
    worker_id TEXT NOT NULL,
    claimed_at_ms INTEGER NOT NULL
  );
  CREATE INDEX reservation_claims_worker ON reservation_claims(worker_id);
  `,
  // Per-user identities: users with a role, their API keys (only a SHA-256 of each key is kept)
  // and the audit log of admin actions.
  `
  CREATE TABLE users (
    user TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('admin', 'user')),
    created_at_ms INTEGER NOT NULL,
    created_by TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    key_id TEXT PRIMARY KEY,
    key_hash BLOB NOT NULL,
    user TEXT NOT NULL REFERENCES users(user),
    name TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    revoked_at_ms INTEGER NOT NULL DEFAULT 0,
    last_used_at_ms INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX api_keys_user ON api_keys(user);
  CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    details TEXT NOT NULL
  );
  `,
  // Late outcomes: what a task supervisor reported about an attempt the controller had already ended
  // (a worker failure), so the attempt history shows work that ran twice.
  `
  ALTER TABLE attempts ADD COLUMN late_state INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE attempts ADD COLUMN late_exit_code INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE attempts ADD COLUMN late_reported_at_ms INTEGER NOT NULL DEFAULT 0;
  `,
  // The log archive: per job, the highest \`logs.id\` copied to object storage and the highest since
  // deleted from this table. A row outlives its job, so a pruned job's logs are still found.
  `
  CREATE TABLE log_archive (
    job_id TEXT PRIMARY KEY,
    submitted_at_ms INTEGER NOT NULL,
    archived_through_id INTEGER NOT NULL,
    archived_at_ms INTEGER NOT NULL,
    pruned_through_id INTEGER NOT NULL DEFAULT 0
  );
  -- The jobs with archived lines still in \`logs\`: what each pruning pass looks at, not every job ever archived.
  CREATE INDEX log_archive_unpruned ON log_archive(job_id) WHERE pruned_through_id < archived_through_id;
  -- The jobs that ended since the archiver's last pass.
  CREATE INDEX jobs_finished ON jobs(finished_at_ms) WHERE finished_at_ms > 0;
  `,
  // Pruned jobs: when a job whose logs are archived is pruned, its \`log_archive\` row keeps the state it
  // ended in, when it ended and when it was pruned, so readers can say so instead of "not found".
  `
  ALTER TABLE log_archive ADD COLUMN job_state INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE log_archive ADD COLUMN job_finished_at_ms INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE log_archive ADD COLUMN job_pruned_at_ms INTEGER NOT NULL DEFAULT 0;
  `,
];
