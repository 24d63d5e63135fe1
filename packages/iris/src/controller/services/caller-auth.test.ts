import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStateHarness } from '../../../test/helpers/controller-harness.js';
import { openControllerDatabase } from '../store/database.js';
import { CallerAuth } from './caller-auth.js';
import { IdentityStore } from '../store/identity-store.js';
import { MIGRATIONS } from '../store/schema.js';

function setup(mode: 'none' | 'shared-token' | 'api-keys') {
  const h = createStateHarness();
  const identities = new IdentityStore(h.state.store.db);
  const auth = new CallerAuth({ mode, sharedToken: 'shared', identities, store: h.state.store, now: () => h.state.now() });
  return { h, identities, auth };
}

describe('CallerAuth', () => {
  it('lets everyone in as the unrestricted user with no auth, and only the token holder with a shared token', () => {
    expect(setup('none').auth.authenticate(undefined)).toEqual({ user: null, role: 'admin' });
    const { auth } = setup('shared-token');
    expect(auth.authenticate('shared')).toEqual({ user: null, role: 'admin' });
    expect(() => auth.authenticate('wrong')).toThrow(expect.objectContaining({ code: 'IRIS_UNAUTHENTICATED' }));
    expect(() => auth.authenticate(undefined)).toThrow(expect.objectContaining({ code: 'IRIS_UNAUTHENTICATED' }));
    expect(auth.taskToken('/u/j')).toBe('');
  });

  it('with API keys: a key is its user with the current role, the shared token is a worker', () => {
    const { auth, identities } = setup('api-keys');
    const { key, row } = identities.createKey({ user: 'alice', name: 'k', createdBy: 'test', nowMs: 1 });
    expect(auth.authenticate(key)).toEqual({ user: 'alice', role: 'user', keyId: row.key_id });
    identities.createKey({ user: 'alice', role: 'admin', name: 'k2', createdBy: 'test', nowMs: 2 });
    expect(auth.authenticate(key)).toMatchObject({ role: 'admin' });
    expect(auth.authenticate('shared')).toEqual({ user: null, role: 'worker' });
    identities.revokeKey(row.key_id, 3);
    expect(() => auth.authenticate(key)).toThrow(expect.objectContaining({ code: 'IRIS_UNAUTHENTICATED' }));
    expect(() => auth.identityOfKey(row.key_id)).toThrow(expect.objectContaining({ code: 'IRIS_UNAUTHENTICATED' }));
  });

  it('gives a new user a budget row capped at BATCH and a new admin none', () => {
    const { h, identities } = setup('api-keys');
    identities.createKey({ user: 'alice', name: '', createdBy: 't', nowMs: 1 });
    identities.createKey({ user: 'root', role: 'admin', name: '', createdBy: 't', nowMs: 1 });
    expect(h.state.getUserBudget('alice').maxBand).toBe(3);
    expect(h.state.getUserBudget('root').maxBand).toBe(0);
    expect(() => identities.createKey({ user: '../x', name: '', createdBy: 't', nowMs: 1 })).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });

  it('accepts a job token only while its job is not finished', () => {
    const { h, auth } = setup('api-keys');
    const jobId = h.launch('/alice/train');
    const token = auth.taskToken(jobId);
    expect(token).toMatch(/^iris-job\./);
    expect(auth.authenticate(token)).toEqual({ user: 'alice', role: 'job', jobId });
    h.state.terminateJob(jobId);
    expect(() => auth.authenticate(token)).toThrow(expect.objectContaining({ code: 'IRIS_UNAUTHENTICATED' }));
  });
});

describe('schema migration to identities', () => {
  it('adds users, api_keys and audit_log to a database of the previous version and keeps its budgets', () => {
    const dir = mkdtempSync(join(tmpdir(), 'iris-migrate-'));
    try {
      const path = join(dir, 'controller.sqlite3');
      const v2 = openControllerDatabase(path);
      // Back to what a controller of version 2 left: no identity tables, no late-outcome columns, no log archive table.
      v2.exec('DROP TABLE audit_log; DROP TABLE api_keys; DROP TABLE users; DROP TABLE log_archive; DROP INDEX jobs_finished;');
      v2.exec('ALTER TABLE attempts DROP COLUMN late_state; ALTER TABLE attempts DROP COLUMN late_exit_code; ALTER TABLE attempts DROP COLUMN late_reported_at_ms;');
      v2.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
      v2.prepare("INSERT INTO user_budgets (user, budget_limit, max_band, updated_at_ms) VALUES ('old', 7, 0, 1)").run();
      v2.close();
      const db = openControllerDatabase(path);
      expect((db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value).toBe(String(MIGRATIONS.length));
      for (const t of ['users', 'api_keys', 'audit_log', 'log_archive']) expect(db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(t), t).toBeDefined();
      expect(db.prepare("SELECT budget_limit FROM user_budgets WHERE user = 'old'").get()).toEqual({ budget_limit: 7 });
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
