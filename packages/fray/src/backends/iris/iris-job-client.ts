import type { IrisClient } from '@marin/iris';

/**
 * The part of `@marin/iris`'s `IrisClient` the Iris backend uses; any real client (from `createIrisClient`, or
 * `startLocalCluster().client()`) satisfies it.
 */
export type IrisJobClient = Pick<IrisClient, 'launchJob' | 'getJob' | 'getJobStates' | 'terminateJob' | 'fetchLogs' | 'uploadBundle' | 'close'>;

/** The iris `JobSpec` fields Fray fills (every one it sets is present); passed to `IrisClient.launchJob` as is. */
export interface IrisJobSpec {
  name: string;
  entrypoint: { run: string[]; setup?: string[][]; workdirFiles: Record<string, string> };
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
  pythonEnv?: { lock: string; pythonVersion: string; name: string };
  maxRetriesFailure: number;
  maxRetriesPreemption: number;
  existingJobPolicy: 'UNSPECIFIED' | 'KEEP';
  priority?: 'PRODUCTION' | 'INTERACTIVE' | 'BATCH';
  inPlaceWorkdir?: string;
}
