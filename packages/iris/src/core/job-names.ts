import { IrisError } from '../errors.js';

const COMPONENT = /^[A-Za-z0-9_.-]{1,128}$/;

/** A parsed job id: `/<user>/<name>[/<child>...]`. */
export interface JobName {
  /** The full id, e.g. `/alice/train/eval`. */
  readonly id: string;
  /** The first component. */
  readonly user: string;
  /** Components after the user; length = depth. */
  readonly path: readonly string[];
  /** Job components below the user (`/alice/train` = 1). */
  readonly depth: number;
  /** Parent job id, or null for a root job. */
  readonly parent: string | null;
  /** Root job id (`/<user>/<first name>`). */
  readonly root: string;
}

/** Checks one name component (user, job or child name). */
export function checkNameComponent(component: string, field: string, isJob: boolean): void {
  if (!COMPONENT.test(component) || component === '.' || component === '..') {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: invalid name component "${component}"; use 1-128 of [A-Za-z0-9_.-], not "." or ".."`);
  }
  if (isJob && /^\d+$/.test(component)) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: job name "${component}" must not be all digits (digits denote tasks)`);
  }
}

/**
 * Parses and validates a job id.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT if the id is not `/<user>/<name>...` with valid components.
 */
export function parseJobName(id: string, field = 'name'): JobName {
  if (!id.startsWith('/')) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: job id "${id}" must start with "/" (e.g. "/alice/train")`);
  const parts = id.slice(1).split('/');
  if (parts.length < 2) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: job id "${id}" must be "/<user>/<name>"`);
  const [user, ...path] = parts as [string, ...string[]];
  checkNameComponent(user, field, false);
  for (const p of path) checkNameComponent(p, field, true);
  const depth = path.length;
  return {
    id,
    user,
    path,
    depth,
    parent: depth > 1 ? `/${user}/${path.slice(0, -1).join('/')}` : null,
    root: `/${user}/${path[0]}`,
  };
}

/** True for a well-formed job id ({@link parseJobName} accepts it). */
export function isJobId(id: string): boolean {
  try {
    parseJobName(id);
    return true;
  } catch {
    return false;
  }
}

/** The id of task `index` of `jobId`, e.g. `/alice/train/0`. */
export function taskIdOf(jobId: string, index: number): string {
  return `${jobId}/${index}`;
}

/** Splits a task id into its job id and index. */
export function parseTaskId(taskId: string): { jobId: string; index: number } {
  const slash = taskId.lastIndexOf('/');
  const index = Number(taskId.slice(slash + 1));
  if (slash <= 0 || !/^\d+$/.test(taskId.slice(slash + 1))) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `task_id: "${taskId}" is not "<job>/<index>"`);
  }
  return { jobId: taskId.slice(0, slash), index };
}

/** The display name of an attempt, e.g. `/alice/train/0:2`. */
export function attemptNameOf(taskId: string, attemptId: number): string {
  return `${taskId}:${attemptId}`;
}

/** Parses `<task>:<attempt_id>`. */
export function parseAttemptName(name: string): { taskId: string; attemptId: number } {
  const colon = name.lastIndexOf(':');
  const tail = name.slice(colon + 1);
  if (colon <= 0 || !/^\d+$/.test(tail)) throw new IrisError('IRIS_INVALID_ARGUMENT', `attempt "${name}" is not "<task>:<attempt_id>"`);
  parseTaskId(name.slice(0, colon));
  return { taskId: name.slice(0, colon), attemptId: Number(tail) };
}

/** True when `id` is `ancestor` or lies below it. */
export function isSameOrDescendant(id: string, ancestor: string): boolean {
  return id === ancestor || id.startsWith(`${ancestor}/`);
}

/** Name of the holder child job a reservation creates under the reserving job. */
export const RESERVATION_HOLDER_NAME = ':reservation:';

/** `/alice/train` → `/alice/train/:reservation:`. */
export function holderJobIdOf(jobId: string): string {
  return `${jobId}/${RESERVATION_HOLDER_NAME}`;
}

/** True for a reservation's holder job (never placed, never dispatched). */
export function isHolderJobId(jobId: string): boolean {
  return jobId.endsWith(`/${RESERVATION_HOLDER_NAME}`);
}
