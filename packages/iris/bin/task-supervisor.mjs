#!/usr/bin/env node
// The parent of Iris task processes, one task at a time (see src/worker/DESIGN.md, "Task supervisor").
// A worker daemon keeps a few of these waiting, so a task start costs one spawn rather than a Node
// start-up, and reuses a supervisor for its next task as soon as the last one's output is read. The
// supervisor keeps each finished task's outcome until the daemon says the controller has it, and
// reports the outcomes it still holds itself if the daemon dies or stalls. Plain JavaScript with no imports beyond Node on the normal path; gRPC is loaded only to
// report an outcome the daemon can no longer deliver.
//
// fd 0  lease pipe from the daemon: "S<spec JSON>\n" starts a task, "." renews the lease,
//       "A<attempt uid>\n" acknowledges that attempt's outcome (the controller has it); end of file
//       means the daemon is gone.
// fd 1  control pipe to the daemon: one JSON line per event ({"started"}, {"exit"}, {"spawnError"},
//       and {"ready"} once the supervisor waits for a spec again).
// fd 4, fd 5  the tasks' stdout and stderr pipes, handed to each task as its fd 1 and 2. They stay
//       open across tasks: once a task's process group is gone the supervisor writes the task's end
//       marker into both, which tells the daemon it has read all of that task's output.
// Each task gets /dev/null and the output pipes on fd 0-2, so neither the lease nor the control pipe
// leaks into it (the copies of fd 4 and 5 it inherits are its own output pipes).
import { spawn } from 'node:child_process';
import { write, writeSync } from 'node:fs';
import { constants } from 'node:os';

const CONTROL_FD = 1;
const TASK_STDOUT_FD = 4;
const TASK_STDERR_FD = 5;
const SPEC = 0x53; // "S"
const RENEW = 0x2e; // "."
const ACK = 0x41; // "A"
const NEWLINE = 0x0a;
const TASK_STATE = { SUCCEEDED: 4, FAILED: 5, KILLED: 6 };
/** How long a task's output waits for background processes of its group to be gone (they hold the pipes). */
const GROUP_GONE_TIMEOUT_MS = 2000;

// The daemon's start fence (src/worker/DESIGN.md, invariant 15): past it the task is not started.
const START_EXPIRED = 'START_EXPIRED';

// The daemon of an earlier version passed one task on the command line; this script takes its tasks
// on fd 0, so such a daemon (a stale build) would wait for a task that never starts.
if (process.argv.length > 2) {
  process.stderr.write('task-supervisor: tasks come on fd 0; the worker daemon is from an older build (rebuild @marin/iris)\n');
  process.exit(2);
}

/**
 * The current task, from its spec until the daemon acknowledges its outcome.
 * @type {null | { spec: { workerId: string, attemptUid: string, controllerAddress: string, leaseMs: number, reportTimeoutMs: number, startByMs?: number, argv: string[], cwd: string, env: Record<string, string>, marker: string },
 *   pid: number, outcome: null | { code: number | null, signal: string | null } | { spawnError: string }, lostReason: string | null, acknowledged: boolean, drained: boolean }}
 */
let task = null;
let lastRenewMs = Date.now();
/** @type {NodeJS.Timeout | null} */
let leaseTimer = null;
/** Outcomes of finished tasks the controller may not have yet, by attempt uid. */
const held = new Map();
/** The command whose line is being received ("S" or "A") and its pieces. */
let command = 0;
/** @type {Buffer[]} */
let pieces = [];
/** Why the daemon counts as lost, once it does. */
let lostReason = null;
let reporting = false;

function send(message) {
  try {
    // Synchronous, so a line is never interleaved with another or lost at exit.
    writeSync(CONTROL_FD, `${JSON.stringify(message)}\n`);
  } catch {
    // The daemon is gone; its end of file on fd 0 handles that.
  }
}

function killGroup(signal) {
  if (task === null || task.pid === 0) return;
  try {
    process.kill(-task.pid, signal);
  } catch {
    // the group is already gone
  }
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Writes all of `bytes` to `fd`, waiting out a full pipe (the fds may be non-blocking). */
function writeAll(fd, bytes) {
  // Almost always the pipe has room: written at once, without a round trip through the thread pool.
  let written = 0;
  try {
    written = writeSync(fd, bytes);
  } catch (e) {
    if (e?.code !== 'EAGAIN') return Promise.resolve(); // the daemon is gone
  }
  if (written >= bytes.length) return Promise.resolve();
  return new Promise((resolve) => {
    const step = (offset) => {
      if (offset >= bytes.length) return resolve();
      write(fd, bytes, offset, bytes.length - offset, null, (err, n) => {
        if (err === null) step(offset + n);
        else if (err.code === 'EAGAIN') setTimeout(() => step(offset), 5);
        else resolve(); // the daemon is gone
      });
    };
    step(written);
  });
}

/** Marks the end of the task's output on both pipes once no process of its group can write any more. */
async function endOutput(current) {
  if (current.pid !== 0) {
    const deadline = Date.now() + GROUP_GONE_TIMEOUT_MS;
    while (groupAlive(current.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  }
  const marker = Buffer.from(`\0${current.spec.marker}\0`);
  await Promise.all([writeAll(TASK_STDOUT_FD, marker), writeAll(TASK_STDERR_FD, marker)]);
  current.drained = true;
  maybeIdle(current);
}

/** Takes the next task once the last one's output is marked; its outcome stays held until acknowledged. */
function maybeIdle(current) {
  if (task !== current || !current.drained || current.outcome === null || lostReason !== null) return;
  if (!current.acknowledged && current.spec.controllerAddress !== '') held.set(current.spec.attemptUid, current);
  task = null;
  updateLeaseTimer();
  send({ ready: true });
}

/** The lease matters while a task runs or an outcome is held; an empty supervisor has nothing to guard. */
function updateLeaseTimer() {
  const spec = task?.spec ?? held.values().next().value?.spec;
  if (spec === undefined) {
    if (leaseTimer !== null) clearInterval(leaseTimer);
    leaseTimer = null;
    return;
  }
  if (leaseTimer !== null) return;
  const leaseMs = spec.leaseMs;
  leaseTimer = setInterval(
    () => {
      if (Date.now() - lastRenewMs > leaseMs) loseDaemon(`worker daemon did not renew its lease for ${leaseMs} ms`);
    },
    Math.max(10, Math.floor(leaseMs / 4)),
  );
}

/** The daemon died or stopped renewing: the task must not outlive it, and no outcome may be lost. */
function loseDaemon(reason) {
  if (lostReason !== null) return;
  lostReason = reason;
  if (task === null && held.size === 0) process.exit(0); // nothing to guard
  if (task !== null && task.outcome === null) {
    task.lostReason = reason;
    killGroup('SIGKILL'); // its exit event then reports
  } else {
    void report();
  }
}

function acknowledge(uid) {
  held.delete(uid);
  if (task !== null && task.spec.attemptUid === uid) {
    // Never in normal operation: the daemon acknowledges only outcomes it has seen, but a task that
    // still runs must not lose its supervisor.
    if (task.outcome === null) return;
    task.acknowledged = true;
    maybeIdle(task);
  }
  updateLeaseTimer();
}

process.stdin.on('data', (chunk) => {
  let i = 0;
  while (i < chunk.length) {
    if (command !== 0) {
      const end = chunk.indexOf(NEWLINE, i);
      if (end < 0) {
        pieces.push(chunk.subarray(i));
        break;
      }
      pieces.push(chunk.subarray(i, end));
      const line = Buffer.concat(pieces).toString('utf8');
      const which = command;
      command = 0;
      pieces = [];
      i = end + 1;
      if (lostReason !== null) continue; // reporting already
      if (which === SPEC) startTask(JSON.parse(line));
      else acknowledge(line);
      continue;
    }
    const byte = chunk[i++];
    if (byte === SPEC || byte === ACK) command = byte;
    else if (byte === RENEW) lastRenewMs = Date.now();
  }
});
process.stdin.on('end', () => loseDaemon('worker daemon exited'));
process.stdin.on('error', () => loseDaemon('worker daemon exited'));

function spawnFailed(current, error) {
  if (current.outcome !== null) return;
  current.outcome = { spawnError: error?.code ?? 'EINVAL' };
  send(current.outcome);
  void endOutput(current);
  if (lostReason !== null) void report();
}

function startTask(spec) {
  if (task !== null) process.exit(1); // a protocol error: the daemon never sends a spec to a busy supervisor
  const current = { spec, pid: 0, outcome: null, lostReason: null, acknowledged: false, drained: false };
  task = current;
  lastRenewMs = Date.now();
  // A lease of another length from an earlier task is replaced by this one's.
  if (leaseTimer !== null) clearInterval(leaseTimer);
  leaseTimer = null;
  updateLeaseTimer();
  // The command is looked up on the task's PATH, as if this process had the task's environment.
  if (spec.env.PATH !== undefined) process.env.PATH = spec.env.PATH;
  else delete process.env.PATH;
  let child;
  try {
    // This process may itself have been starved between the daemon's check and now.
    if (spec.startByMs !== undefined && Date.now() > spec.startByMs) throw Object.assign(new Error('start expired'), { code: START_EXPIRED });
    child = spawn(spec.argv[0] ?? '', spec.argv.slice(1), { cwd: spec.cwd, env: spec.env, stdio: ['ignore', TASK_STDOUT_FD, TASK_STDERR_FD], detached: true });
  } catch (e) {
    spawnFailed(current, e); // invalid arguments (e.g. a NUL byte) throw synchronously
    return;
  }
  child.once('error', (e) => {
    if (current.pid === 0) spawnFailed(current, e);
  });
  child.once('spawn', () => {
    current.pid = child.pid;
    send({ started: { pid: current.pid } });
    if (current.lostReason !== null) killGroup('SIGKILL');
  });
  child.once('exit', (code, signal) => {
    // The attempt ends with its leader; background processes left in its group die too.
    killGroup('SIGKILL');
    current.outcome = { code, signal };
    current.finishedAtMs = Date.now();
    send({ exit: current.outcome, lost: current.lostReason });
    void endOutput(current);
    if (lostReason !== null) void report();
  });
}

/** An attempt's outcome in the controller's terms. */
function attemptResult({ outcome, lostReason: killedFor, spec }) {
  if ('spawnError' in outcome) {
    if (outcome.spawnError === START_EXPIRED) return { state: TASK_STATE.KILLED, exitCode: 0, error: 'not started: the worker lost contact with the controller' };
    return { state: TASK_STATE.FAILED, exitCode: 127, error: `cannot start "${spec.argv[0] ?? ''}": ${outcome.spawnError}` };
  }
  if (outcome.signal === null) {
    if (outcome.code === 0) return { state: TASK_STATE.SUCCEEDED, exitCode: 0, error: '' };
    return { state: TASK_STATE.FAILED, exitCode: outcome.code, error: `Exit code ${outcome.code}` };
  }
  const exitCode = 128 + (constants.signals[outcome.signal] ?? 0);
  if (outcome.signal === 'SIGKILL' && killedFor !== null) {
    return { state: TASK_STATE.KILLED, exitCode, error: `killed by its supervisor: ${killedFor}` };
  }
  return { state: TASK_STATE.FAILED, exitCode, error: `Exit code ${exitCode}: killed by ${outcome.signal}` };
}

/**
 * Tells the controller every outcome the daemon could not confirm (the held ones and the current
 * task's), each retried until the controller answers or `reportTimeoutMs` passes, then exits.
 */
async function report() {
  if (reporting) return;
  reporting = true;
  if (leaseTimer !== null) clearInterval(leaseTimer);
  const outcomes = [...held.values()];
  if (task !== null && task.outcome !== null && !task.acknowledged) outcomes.push(task);
  const toReport = outcomes.filter((t) => t.spec.controllerAddress !== '');
  try {
    if (toReport.length === 0) return;
    const [grpc, { encodeReportAttempt }] = await Promise.all([import('@grpc/grpc-js'), import('./task-supervisor-report.mjs')]);
    await Promise.all(toReport.map((t) => reportOne(grpc, encodeReportAttempt, t)));
  } finally {
    process.exit(0);
  }
}

async function reportOne(grpc, encodeReportAttempt, t) {
  const { spec } = t;
  const request = encodeReportAttempt({ ...attemptResult(t), workerId: spec.workerId, attemptUid: spec.attemptUid, finishedAtMs: t.finishedAtMs ?? Date.now() });
  const client = new grpc.Client(spec.controllerAddress, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  const token = spec.env.IRIS_AUTH_TOKEN;
  if (token) metadata.set('authorization', `Bearer ${token}`);
  const deadline = Date.now() + spec.reportTimeoutMs;
  let delayMs = 100;
  while (Date.now() < deadline) {
    const done = await new Promise((resolve) => {
      client.makeUnaryRequest(
        '/iris.v1.ControllerService/ReportAttempt',
        (bytes) => bytes,
        (bytes) => bytes,
        request,
        metadata,
        { deadline: Date.now() + Math.min(5000, Math.max(1, deadline - Date.now())) },
        // Only an unreachable controller is worth another try.
        (err) => resolve(err === null || (err.code !== grpc.status.UNAVAILABLE && err.code !== grpc.status.DEADLINE_EXCEEDED)),
      );
    });
    if (done) break;
    await new Promise((r) => setTimeout(r, delayMs));
    delayMs = Math.min(delayMs * 2, 2000);
  }
  client.close();
}
