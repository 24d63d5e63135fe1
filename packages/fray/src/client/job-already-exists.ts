import { FrayError } from '../errors.js';
import type { JobHandle } from './client.js';

/** A job of the same name exists and the caller passed `adoptExisting: false`. */
export class JobAlreadyExists extends FrayError {
  override readonly name: string = 'JobAlreadyExists';

  /**
   * @param jobName the conflicting name
   * @param handle a handle to the existing job, when the backend can give one
   */
  constructor(
    readonly jobName: string,
    readonly handle?: JobHandle,
    cause?: unknown,
  ) {
    super('FRAY_JOB_ALREADY_EXISTS', `job "${jobName}" already exists; pass adoptExisting: true to reuse it`, {
      cause,
      details: { jobName },
    });
  }
}
