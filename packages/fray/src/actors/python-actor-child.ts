import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { FrayError } from '../errors.js';
import type { ActorHostSpec } from './actor-main.js';
import { ACTOR_PARENT_PID_ENV, ACTOR_READY_PREFIX, IRIS_ACTOR_ENDPOINT_SUFFIX } from './actor-main.js';
import { actorStopRequested } from './stop-requested.js';
import { registerIrisEndpoint } from './actor-host.js';
import { pythonActorEnv, pythonServeArgs } from './python-actor.js';
import type { PythonHostSpec } from './python-actor.js';

/** SIGTERM → SIGKILL grace for the Python process when this one is stopped. */
const CHILD_KILL_GRACE_MS = 2000;

/**
 * The body of a Python actor's job process on a cluster backend (Iris, the job backend): starts
 * `python -m fray_actors.serve` as a child (sharing this process group, and polling this pid), passes its output
 * through, and once it prints its ready line registers the Iris endpoint for it (inside an Iris task) and prints the
 * ready line itself, with the Python process's address and pid. Ends when stopped (SIGTERM/SIGINT, the child is
 * stopped too) or when the child exits: a child that exits on its own fails this process (it throws
 * FRAY_ACTOR_DEAD, so the runner exits 1), and the backend sees the actor's death and restarts it per its policy.
 */
export async function runPythonActorChild(spec: ActorHostSpec, py: PythonHostSpec, workspace: string): Promise<void> {
  const inIris = (process.env['IRIS_TASK_ID'] ?? '') !== '';
  const host = inIris ? process.env['IRIS_ADVERTISE_HOST'] || undefined : undefined;
  const child = spawn(py.interpreter, pythonServeArgs(py, spec.args, spec.name, host), {
    cwd: workspace,
    env: { ...process.env, ...pythonActorEnv(py, workspace, process.env['PYTHONPATH']), [ACTOR_PARENT_PID_ENV]: String(process.pid) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number>((resolve) => {
    child.once('error', (e) => {
      process.stderr.write(`cannot start the Python actor with "${py.interpreter}": ${e.message}\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128 + 9)));
  });
  createInterface({ input: child.stderr, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => process.stderr.write(`${line}\n`));
  const ready = new Promise<{ address: string; pid: number }>((resolve) => {
    createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      if (line.startsWith(ACTOR_READY_PREFIX)) resolve(JSON.parse(line.slice(ACTOR_READY_PREFIX.length)) as { address: string; pid: number });
      else process.stdout.write(`${line}\n`);
    });
  });
  let stopped = false;
  const stopRequested = actorStopRequested().then(() => {
    stopped = true;
  });
  let unregister = async (): Promise<void> => undefined;
  const first = await Promise.race([ready.then((r) => ({ kind: 'ready' as const, ...r })), exited.then((code) => ({ kind: 'exited' as const, code })), stopRequested.then(() => ({ kind: 'stopped' as const }))]);
  if (first.kind === 'ready') {
    const jobId = process.env['IRIS_JOB_ID'] ?? '';
    if (spec.irisEndpoint === true && inIris && jobId !== '') {
      try {
        unregister = await registerIrisEndpoint(`${jobId}${IRIS_ACTOR_ENDPOINT_SUFFIX}`, first.address, spec.name);
      } catch (e) {
        child.kill('SIGKILL');
        throw FrayError.from(e, 'FRAY_BACKEND_UNAVAILABLE');
      }
    }
    process.stdout.write(`${ACTOR_READY_PREFIX}${JSON.stringify({ address: first.address, pid: first.pid })}\n`);
  }
  const code = first.kind === 'exited' ? first.code : await Promise.race([exited, stopRequested.then(() => null)]);
  await unregister();
  if (code === null || stopped) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_KILL_GRACE_MS);
    await exited;
    clearTimeout(timer);
    return;
  }
  // Fails this process (the module runner exits 1), so the backend sees the actor's death.
  throw new FrayError('FRAY_ACTOR_DEAD', `the Python actor "${spec.name}" exited with code ${code}`, { details: { actor: spec.name, exitCode: code } });
}
