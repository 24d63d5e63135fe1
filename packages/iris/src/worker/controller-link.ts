import { credentials, Metadata } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { IrisError } from '../errors.js';
import { ControllerServiceClient } from '../gen/iris/v1/controller.js';
import type { RegisterRequest, RegisterResponse } from '../gen/iris/v1/controller.js';
import type { LogEntry } from '../gen/iris/v1/types.js';

/**
 * The worker's calls to the controller: `Register`, `PushLogs` and `FetchBundle`, each with the
 * shared token and a deadline.
 */
export class ControllerLink {
  readonly #client: ControllerServiceClient;
  readonly #token: string | undefined;
  readonly #rpcTimeoutMs: number;

  constructor(options: { address: string; token?: string | undefined; rpcTimeoutMs: number }) {
    this.#client = new ControllerServiceClient(options.address, credentials.createInsecure(), {
      'grpc.max_receive_message_length': 8 * 1024 * 1024,
    });
    this.#token = options.token;
    this.#rpcTimeoutMs = options.rpcTimeoutMs;
  }

  /** Registers this worker (one attempt, no retry: the daemon's loop retries). */
  register(request: RegisterRequest): Promise<RegisterResponse> {
    return new Promise((resolve, reject) => {
      this.#client.register(request, this.#metadata(), { deadline: this.#deadline() }, (err, res) =>
        err === null ? resolve(res) : reject(fromGrpc(err, 'Register')),
      );
    });
  }

  /** Pushes one batch of log lines. */
  pushLogs(workerId: string, entries: LogEntry[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#client.pushLogs({ workerId, entries }, this.#metadata(), { deadline: this.#deadline() }, (err) =>
        err === null ? resolve() : reject(fromGrpc(err, 'PushLogs')),
      );
    });
  }

  /** Downloads a bundle archive (a server stream of chunks) into memory. */
  fetchBundle(bundleId: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      // Bundles are up to 100 MiB; the deadline scales from the unary one rather than being fixed.
      const stream = this.#client.fetchBundle({ bundleId }, this.#metadata(), { deadline: Date.now() + this.#rpcTimeoutMs * 30 });
      stream.on('data', (chunk: { data: Buffer }) => chunks.push(chunk.data));
      stream.on('error', (err: ServiceError) => reject(fromGrpc(err, 'FetchBundle')));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  }

  close(): void {
    this.#client.close();
  }

  #metadata(): Metadata {
    const metadata = new Metadata();
    if (this.#token !== undefined) metadata.set('authorization', `Bearer ${this.#token}`);
    return metadata;
  }

  #deadline(): number {
    return Date.now() + this.#rpcTimeoutMs;
  }
}

function fromGrpc(err: ServiceError, method: string): IrisError {
  const sent = err.metadata?.get('iris-error-code')[0];
  const code = typeof sent === 'string' && sent.startsWith('IRIS_') ? (sent as IrisError['code']) : 'IRIS_UNAVAILABLE';
  return new IrisError(code, `controller call ${method} failed`, { cause: err });
}
