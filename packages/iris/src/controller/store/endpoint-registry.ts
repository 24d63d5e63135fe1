import { randomUUID } from 'node:crypto';
import { IrisError } from '../../errors.js';
import type { RegisterEndpointRequest } from '../../gen/iris/v1/controller.js';
import type { Endpoint } from '../../gen/iris/v1/types.js';
import type { ControllerDatabase } from './database.js';
import { parseJobName, parseTaskId } from '../../core/job-names.js';
import type { ControllerStore } from './store.js';
import { isTerminalTaskState } from '../../wire/task-states.js';

interface EndpointRow {
  endpoint_id: string;
  name: string;
  address: string;
  task_id: string;
  attempt_id: number;
  metadata: string;
  registered_at_ms: number;
}

function view(r: EndpointRow): Endpoint {
  return {
    endpointId: r.endpoint_id,
    name: r.name,
    address: r.address,
    taskId: r.task_id,
    attemptId: r.attempt_id,
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    registeredAtMs: r.registered_at_ms,
  };
}

/** Service discovery for what tasks serve; rows live in the controller database. */
export class EndpointRegistry {
  constructor(
    private readonly db: ControllerDatabase,
    private readonly store: ControllerStore,
  ) {}

  /**
   * Registers (idempotently, by `endpoint_id`) an endpoint of a live task's current attempt.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for a name outside the task's root job namespace or under `/system/`;
   *   IRIS_NOT_FOUND for an unknown task; IRIS_FAILED_PRECONDITION for a terminal task or a non-current attempt.
   */
  register(req: RegisterEndpointRequest, now: number): string {
    if (req.address === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'address must not be empty');
    const endpointId = req.endpointId || randomUUID();
    const existing = this.db.prepare('SELECT * FROM endpoints WHERE endpoint_id = ?').get(endpointId) as EndpointRow | undefined;
    if (existing) return existing.endpoint_id;
    const { jobId } = parseTaskId(req.taskId);
    const root = parseJobName(jobId, 'task_id').root;
    if (req.name.startsWith('/system/')) throw new IrisError('IRIS_INVALID_ARGUMENT', `name "${req.name}": /system/ is reserved`);
    if (!req.name.startsWith(`${root}/`) || req.name.length <= root.length + 1) {
      throw new IrisError('IRIS_INVALID_ARGUMENT', `name "${req.name}" must start with the task's root job id "${root}/"`);
    }
    const task = this.store.task(req.taskId);
    if (!task) throw new IrisError('IRIS_NOT_FOUND', `task "${req.taskId}" not found`);
    if (isTerminalTaskState(task.state)) throw new IrisError('IRIS_FAILED_PRECONDITION', `task "${req.taskId}" has ended; cannot register "${req.name}"`);
    if (task.current_attempt_id !== req.attemptId) {
      throw new IrisError('IRIS_FAILED_PRECONDITION', `attempt ${req.attemptId} of "${req.taskId}" is not current (current is ${task.current_attempt_id})`);
    }
    this.db
      .prepare('INSERT INTO endpoints (endpoint_id, name, address, task_id, attempt_id, metadata, registered_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(endpointId, req.name, req.address, req.taskId, req.attemptId, JSON.stringify(req.metadata), now);
    return endpointId;
  }

  /** Removes an endpoint; unknown ids are ignored (idempotent). */
  unregister(endpointId: string): void {
    this.db.prepare('DELETE FROM endpoints WHERE endpoint_id = ?').run(endpointId);
  }

  /** Lists endpoints by exact name, or by name prefix (all when both are empty). */
  list(q: { prefix: string; exact: string }): Endpoint[] {
    const rows =
      q.exact !== ''
        ? (this.db.prepare('SELECT * FROM endpoints WHERE name = ? ORDER BY registered_at_ms, endpoint_id').all(q.exact) as EndpointRow[])
        : (this.db
            .prepare('SELECT * FROM endpoints WHERE substr(name, 1, ?) = ? ORDER BY name, registered_at_ms')
            .all(q.prefix.length, q.prefix) as EndpointRow[]);
    return rows.map(view);
  }
}
