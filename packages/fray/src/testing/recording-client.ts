import { createLocalClient } from '../backends/local/local-client.js';
import type { LocalClient, LocalClientOptions } from '../backends/local/local-client.js';
import type { Client, JobHandle, SubmitOptions } from '../client/client.js';
import type { JobRequest } from '../request/job-request.js';

/** A real local client that also records every request submitted to it. */
export interface RecordingClient extends Client {
  /** Every `submit()` request (accepted or rejected), in call order. */
  readonly submissions: readonly JobRequest[];
  /** The handles returned, in call order (rejected submissions have none). */
  readonly handles: readonly JobHandle[];
}

/**
 * Wraps a local client (same options) and records submissions, so tests can assert what a caller submitted
 * (resources, environment, names) while the jobs really run. Inside its in-process jobs `currentClient()` is the
 * recording client itself, so nested submissions are recorded too. Install it with `withClient(client, fn)`.
 */
export function createRecordingClient(options: LocalClientOptions = {}): RecordingClient {
  const submissions: JobRequest[] = [];
  const handles: JobHandle[] = [];
  let inner: LocalClient | undefined;
  const backend = (): LocalClient => {
    inner ??= createLocalClient({ ...options, contextClient: client });
    return inner;
  };
  const client: RecordingClient = {
    submissions,
    handles,
    async submit(request: JobRequest, submitOptions?: SubmitOptions): Promise<JobHandle> {
      submissions.push(request);
      const handle = await backend().submit(request, submitOptions);
      handles.push(handle);
      return handle;
    },
    shutdown: (o) => backend().shutdown(o),
    close: () => backend().close(),
    [Symbol.asyncDispose]: () => backend().close(),
  };
  return client;
}
