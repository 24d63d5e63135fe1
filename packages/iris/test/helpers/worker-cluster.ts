import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { credentials, Metadata } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { ControllerServiceClient } from '../../src/gen/iris/v1/controller.js';
import type { FetchLogsResponse, LaunchJobRequest, LogQuery } from '../../src/gen/iris/v1/controller.js';
import { JobState } from '../../src/gen/iris/v1/types.js';
import type { JobStatus } from '../../src/gen/iris/v1/types.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = fileURLToPath(new URL('./worker-controller-main.ts', import.meta.url));

/** A real controller in its own process plus a raw gRPC client to it. */
export interface ControllerProcess extends AsyncDisposable {
  readonly address: string;
  readonly port: number;
  launchJob(request: Partial<LaunchJobRequest> & { name: string; argv: string[] }): Promise<string>;
  getJob(jobId: string): Promise<JobStatus>;
  waitForJob(jobId: string, done?: (job: JobStatus) => boolean, timeoutMs?: number): Promise<JobStatus>;
  fetchLogs(query: Partial<LogQuery>): Promise<FetchLogsResponse>;
  terminateJob(jobId: string): Promise<void>;
  uploadBundle(bundleId: string, archive: Buffer): Promise<void>;
  /** SIGTERM (or SIGKILL) the controller and wait for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const TERMINAL_JOB = new Set([JobState.JOB_STATE_SUCCEEDED, JobState.JOB_STATE_FAILED, JobState.JOB_STATE_KILLED, JobState.JOB_STATE_WORKER_FAILED, JobState.JOB_STATE_UNSCHEDULABLE]);

/** Starts `worker-controller-main.ts` and connects to it. */
export async function startControllerProcess(options: Record<string, unknown> = {}): Promise<ControllerProcess> {
  const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', ENTRY, JSON.stringify(options)], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ address: string; port: number }>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`controller did not start: ${stderr}`)), 60_000);
    child.stdout?.on('data', (c: Buffer) => {
      buffer += c.toString();
      const nl = buffer.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      resolve(JSON.parse(buffer.slice(0, nl)) as { address: string; port: number });
    });
    void exited.then(() => reject(new Error(`controller exited: ${stderr}`)));
  });
  const client = new ControllerServiceClient(ready.address, credentials.createInsecure());
  const unary = <TReq, TRes>(method: (req: TReq, md: Metadata, opts: object, cb: (e: ServiceError | null, r: TRes) => void) => unknown, req: TReq) =>
    new Promise<TRes>((resolve, reject) =>
      method.call(client, req, new Metadata(), { deadline: Date.now() + 10_000 }, (e: ServiceError | null, r: TRes) => (e === null ? resolve(r) : reject(e))),
    );
  const getJob = async (jobId: string): Promise<JobStatus> => {
    const res = await unary<{ jobId: string; includeTasks: boolean }, { job?: JobStatus }>(client.getJobStatus, { jobId, includeTasks: true });
    return res.job as JobStatus;
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    client.close();
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    address: ready.address,
    port: ready.port,
    async launchJob(request) {
      const { argv, ...rest } = request;
      const full: LaunchJobRequest = {
        bundleId: '',
        replicas: 1,
        constraints: [],
        ports: [],
        maxTaskFailures: 0,
        maxRetriesFailure: 0,
        timeoutMs: 0,
        schedulingTimeoutMs: 0,
        existingJobPolicy: 0,
        preemptionPolicy: 0,
        priorityBand: 0,
        submitArgv: [],
        user: '',
        resources: { cpuMillicores: 100, memoryBytes: 64 * 1024 * 1024, diskBytes: 0 },
        environment: { envVars: {}, dependencyGroups: [], npmPackages: [] },
        ...rest,
        entrypoint: { setupCommands: [], workdirFiles: {}, inPlace: false, workdir: '', ...rest.entrypoint, run: { argv } },
      };
      return (await unary<LaunchJobRequest, { jobId: string }>(client.launchJob, full)).jobId;
    },
    getJob,
    async waitForJob(jobId, done = (job) => TERMINAL_JOB.has(job.state), timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await getJob(jobId);
        if (done(job)) return job;
        if (Date.now() > deadline) throw new Error(`job ${jobId} not done in time: ${JSON.stringify(job)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    fetchLogs(query) {
      return unary<LogQuery, FetchLogsResponse>(client.fetchLogs, {
        taskId: '',
        jobId: '',
        sinceMs: 0,
        maxLines: 10_000,
        tail: false,
        substring: '',
        minLevel: 0,
        cursor: '',
        ...query,
      });
    },
    async terminateJob(jobId) {
      await unary(client.terminateJob, { jobId });
    },
    uploadBundle(bundleId, archive) {
      return new Promise<void>((resolve, reject) => {
        const call = client.uploadBundle(new Metadata(), { deadline: Date.now() + 60_000 }, (e: ServiceError | null) => (e === null ? resolve() : reject(e)));
        for (let offset = 0; offset < archive.length; offset += 1024 * 1024) call.write({ bundleId, data: archive.subarray(offset, offset + 1024 * 1024) });
        call.end();
      });
    },
    stop,
    [Symbol.asyncDispose]: () => stop('SIGKILL'),
  };
}
