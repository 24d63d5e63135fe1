/**
 * The part of `@marin/iris`'s client that the Iris backend uses, stated structurally so a caller may pass any
 * compatible client (the real one from `createIrisClient`, or one already open inside a task).
 */
export interface IrisJobClient {
  /** Submits a job spec (iris's `JobSpec`); resolves with the full job id. */
  launchJob(spec: IrisJobSpec): Promise<string>;
  /** Current state and error of a job. */
  getJob(jobId: string): Promise<{ readonly state: string; readonly error: string; readonly exitCode: number }>;
  /** States of several jobs in one cheap call. */
  getJobStates(jobIds: string[]): Promise<ReadonlyMap<string, string>>;
  /** Kills a job (and by default its descendants). */
  terminateJob(jobId: string, options?: { includeChildren?: boolean }): Promise<void>;
  /** Log lines of a job (and its children). */
  fetchLogs(query: { jobId: string; includeChildren?: boolean; maxLines?: number; tail?: boolean }): Promise<{ readonly entries: readonly { readonly data: string }[] }>;
  /** Releases the connection. */
  close(): Promise<void>;
}

/** The fields of iris's `JobSpec` that Fray fills. */
export interface IrisJobSpec {
  name: string;
  entrypoint: { run: string[]; setup?: string[][]; workdirFiles?: Record<string, string> };
  resources: {
    cpu: number;
    memory: number;
    disk: number;
    device:
      | { kind: 'cpu' }
      | { kind: 'gpu'; variant: string; count: number }
      | { kind: 'tpu'; variant: string; count: number; topology?: string };
  };
  replicas: number;
  constraints: { key: string; op: 'EQ' | 'NE' | 'EXISTS' | 'NOT_EXISTS' | 'GT' | 'GE' | 'LT' | 'LE' | 'IN'; value?: string | number; values?: (string | number)[] }[];
  coscheduling?: { groupBy: string; tasksPerGroup: number };
  env: Record<string, string>;
  dependencyGroups?: string[];
  npmPackages?: string[];
  maxRetriesFailure: number;
  maxRetriesPreemption: number;
  existingJobPolicy: 'UNSPECIFIED' | 'KEEP';
  inPlaceWorkdir?: string;
}
