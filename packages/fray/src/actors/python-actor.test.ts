import { describe, expect, it } from 'vitest';
import { PythonEnvSpec } from '../request/python-env-spec.js';
import { actorJobSpecOf, checkActorOptions } from './actor-backend.js';
import { checkPythonEntry, isPythonEntry, pythonActorEnv, pythonServeArgs } from './python-actor.js';
import type { PythonActorEntry } from './python-actor.js';

const env = PythonEnvSpec.fromLock('grpcio==1.85.1\n', { name: 'actors.lock' });
const entry: PythonActorEntry = { python: { module: 'pkg.scorers', className: 'Scorer' }, env, pythonPath: ['packages/x/python'] };

describe('Python actor entries', () => {
  it('tells Python entries from TS ones', () => {
    expect(isPythonEntry(entry)).toBe(true);
    expect(isPythonEntry({ module: 'packages/x/src/a.ts', exportName: 'A' })).toBe(false);
  });

  it('refuses a bad module, both or neither of className and factory, a bad env and absolute pythonPath entries', () => {
    const bad = (e: unknown): unknown => {
      try {
        checkPythonEntry(e as PythonActorEntry);
        return undefined;
      } catch (err) {
        return err;
      }
    };
    expect(bad(entry)).toBeUndefined();
    expect(bad({ ...entry, python: { module: 'pkg/scorers.py', className: 'Scorer' } })).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT' });
    expect(bad({ ...entry, python: { module: 'pkg', className: 'A', factory: 'b' } })).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT' });
    expect(bad({ ...entry, python: { module: 'pkg' } })).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT' });
    expect(bad({ ...entry, python: { module: 'pkg', factory: 'make-scorer' } })).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT' });
    expect(bad({ ...entry, env: { interpreter: '' } })).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT' });
    expect(bad({ ...entry, env: { lock: 'grpcio>=1\n', name: 'x', pythonVersion: '3.11' } })).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT', details: { line: 1 } });
    expect(bad({ ...entry, pythonPath: ['/abs/dir'] })).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT' });
    expect(() => checkActorOptions({ ...entry, python: { module: 'pkg' } } as PythonActorEntry, {})).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });

  it('gives cluster backends a runActorHost spec with the Python part and the lock as the job pythonEnv', () => {
    const { spec, pythonEnv } = actorJobSpecOf(entry, 'scorer-0', { args: ['/m.bin', 'hq'] }, true);
    expect(spec).toEqual({
      module: 'pkg.scorers',
      exportName: 'Scorer',
      args: ['/m.bin', 'hq'],
      name: 'scorer-0',
      irisEndpoint: true,
      python: { module: 'pkg.scorers', attr: 'Scorer', interpreter: 'python', pythonPath: ['packages/x/python'] },
    });
    expect(pythonEnv).toBe(env);
    const given = actorJobSpecOf({ ...entry, env: { interpreter: '/opt/py/bin/python3' } }, 'a', {}, false);
    expect(given.pythonEnv).toBeUndefined();
    expect(given.spec.python?.interpreter).toBe('/opt/py/bin/python3');
    expect(actorJobSpecOf({ module: 'packages/x/src/a.ts', exportName: 'A' }, 'a', {}, false)).toEqual({ spec: { module: 'packages/x/src/a.ts', exportName: 'A', args: [], name: 'a' } });
  });

  it('starts `python -u -m fray_actors.serve <spec>` with its own directories, then fray_actors, on PYTHONPATH', () => {
    const py = { module: 'pkg.scorers', attr: 'Scorer', interpreter: 'python', pythonPath: ['packages/x/python'] };
    const args = pythonServeArgs(py, [1, 'two'], 'scorer-0', '10.0.0.5');
    expect(args.slice(0, 3)).toEqual(['-u', '-m', 'fray_actors.serve']);
    expect(JSON.parse(args[3] as string)).toEqual({ module: 'pkg.scorers', attr: 'Scorer', args: [1, 'two'], name: 'scorer-0', host: '10.0.0.5' });
    expect(pythonActorEnv(py, '/ws', '/inherited')).toEqual({ PYTHONPATH: '/ws/packages/x/python:/ws/packages/fray/python:/inherited', PYTHONDONTWRITEBYTECODE: '1' });
    expect(pythonActorEnv(py, '/ws', undefined)['PYTHONPATH']).toBe('/ws/packages/x/python:/ws/packages/fray/python');
  });
});
