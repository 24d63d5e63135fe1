// The actor contract: what every actor backend (local processes, Iris jobs) must do the same way. Each backend's
// integration test registers it with a way to open the backend; actors are real processes serving over gRPC.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonEnvSpec, findWorkspaceRoot } from '@marin/fray';
import type { ActorBackend, AnyActorEntry, ActorHandle, PythonActorEntry } from '@marin/fray';

const FIXTURE = 'packages/fray/test/fixtures/actors.ts';

/** The entries the contract starts; TS and Python fixtures have the same methods and behaviour. */
export interface ContractEntries {
  /** `Counter(start)`: add, get, reverse, echo, sleep, spin, spinState, fail, badResult, pid (and a private `_secret`). */
  counter: AnyActorEntry;
  /** A factory of `{ greet(name) }` taking the greeting. */
  greeter: AnyActorEntry;
  neverReady: AnyActorEntry;
  crashOnStart: AnyActorEntry;
  missingExport: AnyActorEntry;
}

/** The TypeScript fixtures (test/fixtures/actors.ts). */
export const TS_ENTRIES: ContractEntries = {
  counter: { module: FIXTURE, exportName: 'Counter' },
  greeter: { module: FIXTURE, exportName: 'createGreeter' },
  neverReady: { module: FIXTURE, exportName: 'neverReady' },
  crashOnStart: { module: FIXTURE, exportName: 'crashOnStart' },
  missingExport: { module: FIXTURE, exportName: 'noSuchExport' },
};

/** The lock of the Python fixtures' environment (grpcio only). */
export const PYTHON_ACTORS_LOCK = 'packages/fray/test/fixtures/python-actors.lock';

/** The Python fixtures (test/fixtures/py_actors.py), run by the environment of {@link PYTHON_ACTORS_LOCK}. */
export function pythonEntries(): ContractEntries {
  const env = PythonEnvSpec.fromLockFile(`${findWorkspaceRoot()}/${PYTHON_ACTORS_LOCK}`);
  const entry = (python: PythonActorEntry['python']): PythonActorEntry => ({ python, env, pythonPath: ['packages/fray/test/fixtures'] });
  return {
    counter: entry({ module: 'py_actors', className: 'Counter' }),
    greeter: entry({ module: 'py_actors', factory: 'create_greeter' }),
    neverReady: entry({ module: 'py_actors', factory: 'never_ready' }),
    crashOnStart: entry({ module: 'py_actors', factory: 'crash_on_start' }),
    missingExport: entry({ module: 'py_actors', factory: 'no_such_export' }),
  };
}

/** How one backend is driven by the contract. */
export interface ActorContractBackend {
  /** A fresh backend; the contract closes it. */
  open: () => ActorBackend;
  /** Generous bound on starting one actor on this backend, for never-ready checks. */
  readyTimeoutMs: number;
  /** The actors to start. @default TS_ENTRIES */
  entries?: ContractEntries;
}

interface CounterApi {
  add(n: number): number;
  get(): Promise<number>;
  reverse(bytes: Uint8Array): { length: number; reversed: Uint8Array };
}

function unique(base: string): string {
  return `${base}-${Math.random().toString(16).slice(2, 8)}`;
}

async function settle<T>(p: Promise<T>): Promise<{ error?: { code?: string; details?: Record<string, unknown> }; value?: T; ms: number }> {
  const start = Date.now();
  try {
    return { value: await p, ms: Date.now() - start };
  } catch (e) {
    return { error: e as { code?: string }, ms: Date.now() - start };
  }
}

/** Registers the shared actor behaviour for one backend. */
export function actorContract(name: string, setup: ActorContractBackend): void {
  describe(`actors (${name})`, () => {
    let backend: ActorBackend;
    let counter: ActorHandle;
    const entries = setup.entries ?? TS_ENTRIES;
    const COUNTER = entries.counter;

    beforeAll(async () => {
      backend = setup.open();
      counter = await backend.createActor(COUNTER, { args: [10], name: unique('counter') });
    });
    afterAll(async () => {
      await backend.close();
    });

    it('calls methods by name and through a typed proxy, keeping the actor state between calls', async () => {
      expect(counter.state).toBe('ready');
      expect(await counter.call('add', 5)).toBe(15);
      const typed = counter.proxy<CounterApi>({ timeoutMs: 30_000 });
      expect(await typed.add(1)).toBe(16);
      expect(await typed.get()).toBe(16);
      const health = await counter.health();
      expect(health.name).toBe(counter.name);
      expect([...health.methods].sort()).toEqual(['add', 'badResult', 'echo', 'fail', 'get', 'pid', 'reverse', 'sleep', 'spin', 'spinState']);
    });

    it('starts an actor from a factory export with its arguments', async () => {
      await using greeter = await backend.createActor(entries.greeter, { args: ['hello'] });
      expect(await greeter.call('greet', 'marin')).toBe('hello, marin');
    });

    it('carries binary payloads as raw bytes both ways', async () => {
      const bytes = new Uint8Array(1024 * 1024);
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
      const out = await counter.proxy<CounterApi>().reverse(bytes);
      expect(out.length).toBe(bytes.length);
      expect(out.reversed).toBeInstanceOf(Uint8Array);
      expect(out.reversed[0]).toBe(bytes[bytes.length - 1]);
      expect(Buffer.from(out.reversed).equals(Buffer.from(bytes.slice().reverse()))).toBe(true);
    });

    it('reports a missing or private method as FRAY_ACTOR_METHOD_NOT_FOUND and a throwing one as FRAY_ACTOR_METHOD_FAILED', async () => {
      expect((await settle(counter.call('noSuchMethod'))).error).toMatchObject({ code: 'FRAY_ACTOR_METHOD_NOT_FOUND' });
      expect((await settle(counter.call('_secret'))).error).toMatchObject({ code: 'FRAY_ACTOR_METHOD_NOT_FOUND' });
      expect((await settle(counter.call('fail', 'bad shard'))).error).toMatchObject({
        code: 'FRAY_ACTOR_METHOD_FAILED',
        details: { method: 'fail', errorName: 'RangeError' },
      });
      expect(await counter.call('get')).toBeTypeOf('number');
    });

    it('refuses arguments that do not serialize before sending, and a result that does not as FRAY_ACTOR_UNSERIALIZABLE', async () => {
      const before = await counter.call<number>('get');
      expect((await settle(counter.call('add', () => 1))).error).toMatchObject({ code: 'FRAY_ACTOR_UNSERIALIZABLE', details: { path: 'args[0]' } });
      expect((await settle(counter.call('add', 10n))).error).toMatchObject({ code: 'FRAY_ACTOR_UNSERIALIZABLE' });
      expect(await counter.call('get')).toBe(before);
      expect((await settle(counter.call('badResult'))).error).toMatchObject({ code: 'FRAY_ACTOR_UNSERIALIZABLE' });
    });

    it('ends a call at its timeout with FRAY_TIMEOUT, and the actor keeps serving', async () => {
      const r = await settle(counter.callWithOptions('sleep', [20_000], { timeoutMs: 500 }));
      expect(r.error).toMatchObject({ code: 'FRAY_TIMEOUT' });
      expect(r.ms).toBeLessThan(10_000);
      expect(await counter.call('get')).toBeTypeOf('number');
    });

    it('ends a call when its signal aborts with FRAY_ACTOR_CALL_CANCELLED', async () => {
      const ac = new AbortController();
      const call = settle(counter.callWithOptions('sleep', [20_000], { signal: ac.signal, timeoutMs: 30_000 }));
      setTimeout(() => ac.abort(), 200);
      const r = await call;
      expect(r.error).toMatchObject({ code: 'FRAY_ACTOR_CALL_CANCELLED' });
      expect(r.ms).toBeLessThan(10_000);
      const already = await settle(counter.callWithOptions('get', [], { signal: AbortSignal.abort() }));
      expect(already.error).toMatchObject({ code: 'FRAY_ACTOR_CALL_CANCELLED' });
    });

    it('lets the method observe that its call was cancelled, and stop its work on the actor', async () => {
      const ac = new AbortController();
      const call = settle(counter.callWithOptions('spin', [60_000], { signal: ac.signal, timeoutMs: 90_000 }));
      await expect.poll(async () => (await counter.call<{ running: boolean }>('spinState')).running, { timeout: 30_000, interval: 50 }).toBe(true);
      ac.abort();
      const r = await call;
      expect(r.error).toMatchObject({ code: 'FRAY_ACTOR_CALL_CANCELLED' });
      // The work stops on the actor (long before its 60 s), and reports that it saw the cancellation.
      await expect.poll(async () => counter.call<{ running: boolean; stoppedEarly: boolean }>('spinState'), { timeout: 20_000, interval: 100 }).toMatchObject({
        running: false,
        stoppedEarly: true,
      });
      // A deadline is a cancellation too.
      const late = await settle(counter.callWithOptions('spin', [60_000], { timeoutMs: 1_000 }));
      expect(late.error).toMatchObject({ code: 'FRAY_TIMEOUT' });
      await expect.poll(async () => counter.call<{ running: boolean; stoppedEarly: boolean }>('spinState'), { timeout: 20_000, interval: 100 }).toMatchObject({
        running: false,
        stoppedEarly: true,
      });
    });

    it('reports an actor that never serves, or crashes while building, as FRAY_ACTOR_NOT_READY', async () => {
      const never = await settle(backend.createActor(entries.neverReady, { readyTimeoutMs: setup.readyTimeoutMs }));
      expect(never.error).toMatchObject({ code: 'FRAY_ACTOR_NOT_READY' });
      expect(never.ms).toBeLessThan(setup.readyTimeoutMs + 30_000);
      const crash = await settle(backend.createActor(entries.crashOnStart, { readyTimeoutMs: setup.readyTimeoutMs }));
      expect(crash.error).toMatchObject({ code: 'FRAY_ACTOR_NOT_READY' });
      const missing = await settle(backend.createActor(entries.missingExport, { readyTimeoutMs: setup.readyTimeoutMs }));
      expect(missing.error).toMatchObject({ code: 'FRAY_ACTOR_NOT_READY' });
    });

    it('spreads group calls round-robin and calls all members at once', async () => {
      await using group = await backend.createActorGroup(COUNTER, 2, { args: [0] });
      expect(group.size).toBe(2);
      const pids = await group.callAll<number>('pid');
      expect(pids.map((r) => r.ok)).toEqual([true, true]);
      const distinct = new Set(pids.map((r) => (r.ok ? r.value : 0)));
      expect(distinct.size).toBe(2);
      const picked = [await group.call<number>('pid'), await group.call<number>('pid'), await group.call<number>('pid'), await group.call<number>('pid')];
      expect(picked[0]).not.toBe(picked[1]);
      expect(picked[0]).toBe(picked[2]);
      expect(picked[1]).toBe(picked[3]);
    });

    it('fails a call whose actor process is killed mid-call within its timeout, and the group keeps serving', async () => {
      await using group = await backend.createActorGroup(COUNTER, 2, { args: [0], maxRestarts: 0 });
      const victim = group.handles[0] as ActorHandle;
      const { pid } = await victim.health();
      const call = settle(victim.callWithOptions('sleep', [60_000], { timeoutMs: 45_000 }));
      await new Promise((r) => setTimeout(r, 300));
      process.kill(pid, 'SIGKILL');
      const r = await call;
      expect(['FRAY_ACTOR_DEAD', 'FRAY_ACTOR_UNAVAILABLE']).toContain(r.error?.code);
      expect(r.ms).toBeLessThan(45_000);
      // Without restarts the member is dead for good: calls to it fail at once, the group routes around it.
      await expect.poll(() => victim.state, { timeout: 30_000 }).toBe('dead');
      expect((await settle(victim.call('get'))).error).toMatchObject({ code: 'FRAY_ACTOR_DEAD' });
      expect(group.liveCount).toBe(1);
      for (let i = 0; i < 4; i++) expect(await group.call('add', 1)).toBe(i + 1);
      const all = await group.callAll<number>('get');
      expect(all).toEqual([{ index: 1, ok: true, value: 4 }]);
    });

    it('restarts an actor whose process dies up to maxRestarts times, then reports it dead', async () => {
      await using actor = await backend.createActor(COUNTER, { args: [0], maxRestarts: 1 });
      const first = await actor.call<number>('pid');
      await actor.call('add', 5);
      process.kill(first, 'SIGKILL');
      // The restarted process is a fresh instance built from the same entry and arguments.
      await expect.poll(async () => (await settle(actor.callWithOptions<number>('pid', [], { timeoutMs: 30_000 }))).value ?? first, { timeout: 90_000, interval: 200 }).not.toBe(first);
      expect(await actor.call('get')).toBe(0);
      process.kill(await actor.call<number>('pid'), 'SIGKILL');
      await expect.poll(() => actor.state, { timeout: 60_000 }).toBe('dead');
      const r = await settle(actor.callWithOptions('get', [], { timeoutMs: 30_000 }));
      expect(r.error).toMatchObject({ code: 'FRAY_ACTOR_DEAD' });
      expect(r.ms).toBeLessThan(5_000);
    });
  });
}
