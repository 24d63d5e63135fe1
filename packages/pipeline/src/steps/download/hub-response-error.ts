import { PipelineError } from '../../errors.js';
import { parseRateLimitResetSeconds } from './rate-limit-header.js';

/** Which repository a hub request was about, for error messages and details. */
export interface HubTarget {
  /** `org/name`. */
  repoId: string;
  /** Pinned revision. */
  revision: string;
}

/**
 * The {@link PipelineError} for a non-OK hub response: 401/403 → PIPELINE_HUB_UNAUTHORIZED and
 * 404 → PIPELINE_HUB_NOT_FOUND (neither retryable); 408, 429 and 5xx → PIPELINE_HUB_UNAVAILABLE,
 * retryable, with the `RateLimit` reset in `details.rateLimitResetSeconds`; any other status →
 * PIPELINE_HUB_UNAVAILABLE, not retryable.
 */
export function hubResponseError(res: Response, url: string, target: HubTarget): PipelineError {
  const status = res.status;
  const details = { url, status, dataset: target.repoId, revision: target.revision };
  if (status === 401 || status === 403) {
    return new PipelineError(
      'PIPELINE_HUB_UNAUTHORIZED',
      `hub refused access to "${target.repoId}" (HTTP ${status}): set HF_TOKEN to a token with access to the dataset`,
      { details },
    );
  }
  if (status === 404) {
    return new PipelineError(
      'PIPELINE_HUB_NOT_FOUND',
      `hub has no "${url}" (HTTP 404): check the repository id "${target.repoId}", revision "${target.revision}" and hf_repo_type_prefix`,
      { details },
    );
  }
  const transient = status === 408 || status === 429 || status >= 500;
  return new PipelineError('PIPELINE_HUB_UNAVAILABLE', `hub answered HTTP ${status} for "${url}"`, {
    retryable: transient,
    details: { ...details, rateLimitResetSeconds: parseRateLimitResetSeconds(res.headers.get('ratelimit')) },
  });
}
