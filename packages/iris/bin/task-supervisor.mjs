#!/usr/bin/env node
// The parent of one Iris task process; the worker daemon starts one per attempt (see
// src/worker/DESIGN.md, "Task supervisor"). Plain JavaScript with no imports beyond Node on the
// normal path, so it starts in one bare `node` startup; gRPC is loaded only to report an outcome the
// daemon can no longer deliver.
//
// argv: <config JSON> <task argv...>; env: the task's environment (passed on unchanged).
// fd 0  lease pipe from the daemon: "." renews the lease, "A" acknowledges the outcome (exit now);
//       end of file means the daemon is gone.
// fd 1  control pipe to the daemon: one JSON line per event ({"started"}, {"exit"}, {"spawnError"}).
// fd 4, fd 5  the task's stdout and stderr, handed to the task as its fd 1 and 2 and closed here.
// The task gets /dev/null and the output pipes on fd 0-2, so neither the lease nor the control pipe
// leaks into it (the copies of fd 4 and 5 it inherits are its own output pipes).
import { spawn } from 'node:child_process';
import { closeSync, writeSync } from 'node:fs';
import { constants } from 'node:os';

const CONTROL_FD = 1;
const TASK_STDOUT_FD = 4;
const TASK_STDERR_FD = 5;
const RENEW = 0x2e; // "."
const ACK = 0x41; // "A"
const TASK_STATE = { SUCCEEDED: 4, FAILED: 5, KILLED: 6 };

// The daemon's start fence (src/worker/DESIGN.md, invariant 15): past it the task is not started.
const START_EXPIRED = 'START_EXPIRED';

/** @type {{ workerId: string, attemptUid: string, controllerAddress: string, leaseMs: number, reportTimeoutMs: number, startByMs?: number }} */
const config = JSON.parse(process.argv[2] ?? '{}');
const argv = process.argv.slice(3);

let taskPid = 0;
/** @type {{ code: number | null, signal: string | null } | { spawnError: string } | null} */
let outcome = null;
/** Why the daemon counts as lost, once it does. */
let lostReason = null;
let lastRenewMs = Date.now();
let reporting = false;

function send(message) {
  try {
    writeSync(CONTROL_FD, `${JSON.stringify(message)}\n`);
  } catch {
    // The daemon is gone; its end of file on fd 0 handles that.
  }
}

function killGroup(signal) {
  if (taskPid === 0) return;
  try {
    process.kill(-taskPid, signal);
  } catch {
    // the group is already gone
  }
}

function closeTaskOutput() {
  for (const fd of [TASK_STDOUT_FD, TASK_STDERR_FD]) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
}

/** The daemon died or stopped renewing: the task must not outlive it, and its outcome must not be lost. */
function loseDaemon(reason) {
  if (lostReason !== null) return;
  lostReason = reason;
  if (outcome === null) killGroup('SIGKILL'); // its exit event then reports
  else void report();
}

process.stdin.on('data', (chunk) => {
  for (const byte of chunk) {
    if (byte === RENEW) lastRenewMs = Date.now();
    else if (byte === ACK) process.exit(0);
  }
});
process.stdin.on('end', () => loseDaemon('worker daemon exited'));
process.stdin.on('error', () => loseDaemon('worker daemon exited'));
const leaseTimer = setInterval(
  () => {
    if (Date.now() - lastRenewMs > config.leaseMs) loseDaemon(`worker daemon did not renew its lease for ${config.leaseMs} ms`);
  },
  Math.max(10, Math.floor(config.leaseMs / 4)),
);

function spawnFailed(error) {
  if (outcome !== null) return;
  closeTaskOutput();
  outcome = { spawnError: error?.code ?? 'EINVAL' };
  send(outcome);
  if (config.controllerAddress === '') process.exit(0);
  if (lostReason !== null) void report();
}

let child;
try {
  // This process may itself have been starved between the daemon's check and now.
  if (config.startByMs !== undefined && Date.now() > config.startByMs) throw Object.assign(new Error('start expired'), { code: START_EXPIRED });
  child = spawn(argv[0] ?? '', argv.slice(1), { stdio: ['ignore', TASK_STDOUT_FD, TASK_STDERR_FD], detached: true });
} catch (e) {
  spawnFailed(e); // invalid arguments (e.g. a NUL byte) throw synchronously
}
child?.once('error', (e) => {
  if (taskPid === 0) spawnFailed(e);
});
child?.once('spawn', () => {
  taskPid = child.pid;
  closeTaskOutput();
  send({ started: { pid: taskPid } });
  if (lostReason !== null) killGroup('SIGKILL');
});
child?.once('exit', (code, signal) => {
  // The attempt ends with its leader; background processes left in its group die too.
  killGroup('SIGKILL');
  outcome = { code, signal };
  send({ exit: outcome, lost: lostReason });
  // Without a controller to report to there is nothing to hold on to.
  if (config.controllerAddress === '') process.exit(0);
  if (lostReason !== null) void report();
});

/** The attempt's outcome in the controller's terms. */
function attemptResult() {
  if ('spawnError' in outcome) {
    if (outcome.spawnError === START_EXPIRED) return { state: TASK_STATE.KILLED, exitCode: 0, error: 'not started: the worker lost contact with the controller' };
    return { state: TASK_STATE.FAILED, exitCode: 127, error: `cannot start "${argv[0] ?? ''}": ${outcome.spawnError}` };
  }
  if (outcome.signal === null) {
    if (outcome.code === 0) return { state: TASK_STATE.SUCCEEDED, exitCode: 0, error: '' };
    return { state: TASK_STATE.FAILED, exitCode: outcome.code, error: `Exit code ${outcome.code}` };
  }
  const exitCode = 128 + (constants.signals[outcome.signal] ?? 0);
  if (outcome.signal === 'SIGKILL' && lostReason !== null) {
    return { state: TASK_STATE.KILLED, exitCode, error: `killed by its supervisor: ${lostReason}` };
  }
  return { state: TASK_STATE.FAILED, exitCode, error: `Exit code ${exitCode}: killed by ${outcome.signal}` };
}

/** Tells the controller directly, retrying until it answers or `reportTimeoutMs` passes, then exits. */
async function report() {
  if (reporting) return;
  reporting = true;
  clearInterval(leaseTimer);
  if (config.controllerAddress === '') process.exit(0);
  const result = attemptResult();
  try {
    const [grpc, { encodeReportAttempt }] = await Promise.all([import('@grpc/grpc-js'), import('./task-supervisor-report.mjs')]);
    const request = encodeReportAttempt({ ...result, workerId: config.workerId, attemptUid: config.attemptUid, finishedAtMs: Date.now() });
    const client = new grpc.Client(config.controllerAddress, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    const token = process.env.IRIS_AUTH_TOKEN;
    if (token) metadata.set('authorization', `Bearer ${token}`);
    const deadline = Date.now() + config.reportTimeoutMs;
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
  } finally {
    process.exit(0);
  }
}
