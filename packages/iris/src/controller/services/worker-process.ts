import { Metadata, credentials } from '@grpc/grpc-js';
import type { ClientOptions, ServerWritableStream, ServiceError } from '@grpc/grpc-js';
import { IrisError } from '../../errors.js';
import type { GetProcessLogsResponse, ProcessLogLine, ProcessStatus, ProfileChunk, ProfileProcessRequest } from '../../gen/iris/v1/cluster.js';
import { WorkerServiceClient } from '../../gen/iris/v1/worker.js';
import { grpcStatusOfError } from '../../wire/grpc-errors.js';
import { createAuthInterceptor } from '../../wire/token-auth.js';

/** How long the controller waits for a worker's status or log lines. */
const WORKER_PROCESS_DEADLINE_MS = 10_000;

/**
 * A worker daemon's own process, asked through its `WorkerService` with the workers' shared token.
 * The caller has already been authorized (admins only) by the cluster service.
 */
export class WorkerProcessRelay {
  constructor(
    private readonly workerAddress: (workerId: string) => string | undefined,
    private readonly workerToken: string | undefined,
  ) {}

  /** @throws {IrisError} IRIS_NOT_FOUND for a worker the controller does not know; the worker's own errors as they come */
  async status(workerId: string): Promise<ProcessStatus> {
    return this.#unary<ProcessStatus>(workerId, (c, deadline, done) => c.getProcessStatus({ workerId }, new Metadata(), { deadline }, done));
  }

  async logs(workerId: string, tail: number): Promise<ProcessLogLine[]> {
    const res = await this.#unary<GetProcessLogsResponse>(workerId, (c, deadline, done) => c.getProcessLogs({ tail, workerId }, new Metadata(), { deadline }, done));
    return res.lines;
  }

  /** Relays the worker's profile stream to `call`; a caller that goes away cancels the worker's call. */
  relayProfile(call: ServerWritableStream<ProfileProcessRequest, ProfileChunk>): void {
    let client: WorkerServiceClient;
    try {
      client = this.#client(call.request.workerId);
    } catch (e) {
      call.emit('error', grpcStatusOfError(e));
      return;
    }
    const upstream = client.profileProcess(call.request, new Metadata());
    call.on('cancelled', () => upstream.cancel());
    upstream.on('data', (m: ProfileChunk) => call.write(m));
    upstream.on('end', () => {
      call.end();
      client.close();
    });
    upstream.on('error', (e: ServiceError) => {
      call.emit('error', grpcStatusOfError(e));
      client.close();
    });
  }

  #client(workerId: string): WorkerServiceClient {
    const address = this.workerAddress(workerId);
    if (address === undefined) throw new IrisError('IRIS_NOT_FOUND', `worker "${workerId}" not found`);
    const options: ClientOptions = this.workerToken ? { interceptors: [createAuthInterceptor(this.workerToken)] } : {};
    return new WorkerServiceClient(address, credentials.createInsecure(), options);
  }

  #unary<T>(workerId: string, send: (c: WorkerServiceClient, deadline: number, done: (e: ServiceError | null, res: T) => void) => void): Promise<T> {
    const client = this.#client(workerId);
    return new Promise<T>((resolve, reject) => {
      send(client, Date.now() + WORKER_PROCESS_DEADLINE_MS, (e, res) => {
        client.close();
        if (e) reject(IrisError.from(e));
        else resolve(res);
      });
    }).catch((e: unknown) => {
      // An unreachable worker is named, not reported as the controller's own failure.
      const err = IrisError.from(e);
      if (err.code === 'IRIS_UNAVAILABLE' || err.code === 'IRIS_DEADLINE_EXCEEDED') throw new IrisError(err.code, `worker "${workerId}": ${err.message}`, { cause: e });
      throw err;
    });
  }
}
