// The ArtifactStep vector test: seeded configs, names and versions run through today's Marin (marin-core 0.2.227,
// test/python/artifact_vectors.py) and through this package; canonical payloads, fingerprints, paths, record
// bytes and validation verdicts must all agree.
import { parsePyJson } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { ExecutorError } from '../../src/errors.js';
import { fingerprintHash } from '../../src/artifact/canonical-json.js';
import { makeRecord, serializeRecord } from '../../src/artifact/record.js';
import { isMutableVersion, validatePathSegment, validateVersion } from '../../src/artifact/version.js';
import { caseHandle, decodeTagged, seededRandom, VectorGenerator } from '../helpers/artifact-vectors.js';
import type { ConfigCase } from '../helpers/artifact-vectors.js';
import { runMarinPython } from '../helpers/marin-core-python.js';
import { userNamespacedName, usernameSegment } from '../../src/artifact/namespacing.js';

const SEED = 20261125;
const CONFIGS = 400;
const STRINGS = 600;
const PREFIX = 'gs://bucket/prefix';
const PROVENANCE = {
  tree_hash: 'abc1234', base_commit: 'def5678', dirty: true, branch: 'main', built_by: 'vector', git_remote: null,
  created_at: '2026-11-25T12:00:00.000001', command_line: ['vectors.py', '--x'],
};

interface PyConfigResult { payload?: string; fingerprint?: string; path?: string; record?: string; error?: string }
interface PyStringResult { version: 'ok' | 'error'; name: 'ok' | 'error'; mutable: boolean }

function verdict(fn: () => void): 'ok' | 'error' {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (ExecutorError.hasCode(e, 'EXECUTOR_INVALID_VERSION')) return 'error';
    throw e;
  }
}

async function tsConfigResult(c: ConfigCase): Promise<PyConfigResult> {
  const handle = caseHandle(c);
  const payload = await handle.fingerprintPayload();
  const fingerprint = fingerprintHash(payload);
  const record = serializeRecord(
    makeRecord({
      name: handle.name, version: handle.version, fingerprint, result_type: 'vectors.Thing', output_path: handle.path(PREFIX),
      deps: handle.deps.map((d) => d.id), dep_paths: handle.deps.map((d) => d.path(PREFIX)),
      config: parsePyJson(payload) as Record<string, unknown>,
      result: c.result === null ? null : { score: decodeTagged(c.result, null, [], true) },
      fingerprint_payload: payload, provenance: PROVENANCE,
    }),
  );
  return { payload, fingerprint, path: handle.path(PREFIX), record };
}

describe('ArtifactStep vectors against marin-core 0.2.227', () => {
  it(`agrees on ${CONFIGS} seeded configs and ${STRINGS} names/versions with 0 mismatches`, async () => {
    const gen = new VectorGenerator(seededRandom(SEED));
    const configs = Array.from({ length: CONFIGS }, () => gen.case());
    const strings = Array.from({ length: STRINGS }, () => gen.versionString());
    const users = ['alice', 'Russell.Power@example.com', ' Bob Smith ', 'é-user', '@@@', 'a_b-c', 'X!!y', 'root', '---', 'A@B@C'];
    const { stdout } = await runMarinPython('artifact_vectors.py', [], { prefix: '/tmp/marin-vectors-unused', input: JSON.stringify({ configs, strings, users }) });
    const py = JSON.parse(stdout) as { configs: PyConfigResult[]; strings: PyStringResult[]; users: Record<string, unknown>[] };

    const mismatches: string[] = [];
    for (const [i, c] of configs.entries()) {
      const want = py.configs[i] as PyConfigResult;
      expect(want.error, `python failed on case ${i}`).toBeUndefined();
      const got = await tsConfigResult(c);
      for (const field of ['payload', 'fingerprint', 'path', 'record'] as const) {
        if (got[field] !== want[field]) mismatches.push(`config ${i} ${field}:\n  py ${JSON.stringify(want[field])}\n  ts ${JSON.stringify(got[field])}`);
      }
    }
    for (const [i, s] of strings.entries()) {
      const want = py.strings[i] as PyStringResult;
      const got: PyStringResult = {
        version: verdict(() => validateVersion(s)),
        name: verdict(() => validatePathSegment('name', s)),
        mutable: isMutableVersion(s),
      };
      if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`string ${JSON.stringify(s)}: py ${JSON.stringify(want)} ts ${JSON.stringify(got)}`);
    }
    for (const [i, raw] of users.entries()) {
      const env = { MARIN_PROVENANCE: JSON.stringify({ tree_hash: '', base_commit: '', dirty: false, built_by: raw }) };
      let got: Record<string, unknown>;
      try {
        got = { segment: usernameSegment(env), namespaced: userNamespacedName('train/x', 'dev', env) };
      } catch (e) {
        if (!ExecutorError.hasCode(e, 'EXECUTOR_INVALID_ARGUMENT')) throw e;
        got = { error: true };
      }
      if (JSON.stringify(got) !== JSON.stringify(py.users[i])) mismatches.push(`user ${JSON.stringify(raw)}: py ${JSON.stringify(py.users[i])} ts ${JSON.stringify(got)}`);
    }
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(mismatches.length).toBe(0);
    // The generator reaches the interesting cases (not a vacuous agreement).
    expect(py.strings.filter((s) => s.version === 'ok').length).toBeGreaterThan(20);
    expect(py.strings.filter((s) => s.name === 'error').length).toBeGreaterThan(20);
    expect(new Set(py.configs.map((c) => c.fingerprint)).size).toBeGreaterThan(CONFIGS * 0.6);
  }, 180_000);
});
