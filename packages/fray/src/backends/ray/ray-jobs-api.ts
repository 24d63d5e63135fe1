import { request as httpGet } from 'node:http';
import { request as httpsGet } from 'node:https';
import { z } from 'zod';
import { FrayError } from '../../errors.js';
import type { RayJobSubmission } from './ray-submission.js';

/** Ray's job states (`ray.job_submission.JobStatus`). */
export type RayJobState = 'PENDING' | 'RUNNING' | 'STOPPED' | 'SUCCEEDED' | 'FAILED';

const JobInfoSchema = z.looseObject({
  submission_id: z.string().nullable().optional(),
  job_id: z.string().nullable().optional(),
  status: z.enum(['PENDING', 'RUNNING', 'STOPPED', 'SUCCEEDED', 'FAILED']),
  entrypoint: z.string().default(''),
  message: z.string().nullable().optional(),
  error_type: z.string().nullable().optional(),
  start_time: z.number().nullable().optional(),
  end_time: z.number().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  driver_exit_code: z.number().nullable().optional(),
});

/** What Ray reports about one job (`GET /api/jobs/{id}`), in Fray's spelling. */
export interface RayJobInfo {
  readonly submissionId: string;
  readonly state: RayJobState;
  readonly entrypoint: string;
  /** Ray's explanation: why a job is pending, or why it failed (with the last log lines). */
  readonly message: string;
  readonly errorType: string | null;
  readonly startTimeMs: number | null;
  readonly endTimeMs: number | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly exitCode: number | null;
}

function toInfo(raw: z.output<typeof JobInfoSchema>): RayJobInfo {
  return {
    submissionId: raw.submission_id ?? raw.job_id ?? '',
    state: raw.status,
    entrypoint: raw.entrypoint,
    message: raw.message ?? '',
    errorType: raw.error_type ?? null,
    startTimeMs: raw.start_time ?? null,
    endTimeMs: raw.end_time ?? null,
    metadata: raw.metadata ?? {},
    exitCode: raw.driver_exit_code ?? null,
  };
}

/** Options of {@link RayJobsApi}. */
export interface RayJobsApiOptions {
  /** The dashboard's base URL, `http://host:8265`. */
  readonly baseUrl: string;
  /** Sent with every request (an auth header for clusters behind one). */
  readonly headers: Readonly<Record<string, string>>;
  /** Per-request timeout. */
  readonly requestTimeoutMs: number;
}

/** A thin client of Ray's Jobs REST API (served by the dashboard); plain `fetch`, zod at the boundary. */
export class RayJobsApi {
  constructor(private readonly options: RayJobsApiOptions) {}

  /** The dashboard address requests go to. */
  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /**
   * `POST /api/jobs/`.
   * @throws {FrayError} FRAY_BACKEND_UNAVAILABLE when Ray refuses or cannot be reached (`details.status`, `details.body`)
   */
  async submit(body: RayJobSubmission): Promise<void> {
    await this.request('POST', '/api/jobs/', body, `submit job "${body.submission_id}"`);
  }

  /** `GET /api/jobs/{id}`; `null` for a job Ray does not know. */
  async get(submissionId: string): Promise<RayJobInfo | null> {
    const res = await this.request('GET', `/api/jobs/${encodeURIComponent(submissionId)}`, undefined, `status of "${submissionId}"`, true);
    if (res === null) return null;
    return toInfo(this.parse(JobInfoSchema, res, `status of "${submissionId}"`));
  }

  /** `GET /api/jobs/`: every job the cluster remembers. */
  async list(): Promise<RayJobInfo[]> {
    const res = await this.request('GET', '/api/jobs/', undefined, 'list jobs');
    return this.parse(z.array(JobInfoSchema), res, 'list jobs').map(toInfo);
  }

  /** `GET /api/jobs/{id}/logs`: the driver's whole output so far. */
  async logs(submissionId: string): Promise<string> {
    const res = await this.request('GET', `/api/jobs/${encodeURIComponent(submissionId)}/logs`, undefined, `logs of "${submissionId}"`);
    return this.parse(z.looseObject({ logs: z.string() }), res, `logs of "${submissionId}"`).logs;
  }

  /** `POST /api/jobs/{id}/stop`; whether Ray accepted the stop (false for a finished job). */
  async stop(submissionId: string): Promise<boolean> {
    const res = await this.request('POST', `/api/jobs/${encodeURIComponent(submissionId)}/stop`, undefined, `stop "${submissionId}"`);
    return this.parse(z.looseObject({ stopped: z.boolean() }), res, `stop "${submissionId}"`).stopped;
  }

  private parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new FrayError('FRAY_BACKEND_UNAVAILABLE', `unexpected answer from Ray at ${this.baseUrl} to ${what}`, { cause: parsed.error, retryable: false });
    }
    return parsed.data;
  }

  private async request(method: string, path: string, body: unknown, what: string, notFoundIsNull = false): Promise<unknown> {
    let res: { status: number; text: string };
    try {
      res = await httpRequest(`${this.baseUrl}${path}`, {
        method,
        headers: { ...this.options.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: this.options.requestTimeoutMs,
      });
    } catch (e) {
      throw new FrayError('FRAY_BACKEND_UNAVAILABLE', `cannot reach Ray's dashboard at ${this.baseUrl} (${what}); check the address and that the dashboard runs`, {
        cause: e,
        retryable: true,
        details: { address: this.baseUrl },
      });
    }
    const { text } = res;
    const ok = res.status >= 200 && res.status < 300;
    if (res.status === 404 && notFoundIsNull) return null;
    if (!ok) {
      throw new FrayError('FRAY_BACKEND_UNAVAILABLE', `Ray refused ${what}: HTTP ${res.status}`, {
        retryable: res.status >= 500 && res.status !== 501,
        details: { status: res.status, body: text.slice(-4000), address: this.baseUrl },
      });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw new FrayError('FRAY_BACKEND_UNAVAILABLE', `Ray's answer to ${what} is not JSON`, { cause: e, retryable: false, details: { body: text.slice(0, 500) } });
    }
  }
}

/**
 * One HTTP exchange with node:http. Not `fetch`: undici always sends `Sec-Fetch-Mode`, and Ray's dashboard refuses
 * requests that look like they come from a browser (HTTP 405) to block cross-site job submission.
 */
function httpRequest(
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined; timeoutMs: number },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsGet : httpGet;
    const req = send(url, { method: init.method, headers: init.headers, timeout: init.timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${init.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(init.body);
  });
}
