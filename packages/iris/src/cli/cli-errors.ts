import { redactCredentials } from '../auth/api-keys.js';
import { IRIS_ERROR_CODE_METADATA_KEY, IrisError } from '../errors.js';

const HINT = 'check --controller or IRIS_CONTROLLER_ADDRESS, or start a local cluster with `iris cluster start --local`';

/** gRPC's transport failure details, turned into the few words a user needs. */
const TRANSPORT_REASONS: readonly (readonly [RegExp, string])[] = [
  [/ECONNREFUSED/, 'connection refused'],
  [/Name resolution failed|ENOTFOUND|EAI_AGAIN/, 'host not found'],
  [/ETIMEDOUT|timed out/i, 'connection timed out'],
  [/EHOSTUNREACH|ENETUNREACH/, 'host unreachable'],
  [/ECONNRESET|Connection dropped|socket hang up/i, 'connection reset'],
  [/EPROTO|wrong version number|Protocol error|http2/i, 'not a gRPC server'],
];

function fromServer(e: IrisError): boolean {
  const cause = e.cause as { metadata?: { get?: (k: string) => unknown[] } } | undefined;
  return (cause?.metadata?.get?.(IRIS_ERROR_CODE_METADATA_KEY)?.length ?? 0) > 0;
}

/**
 * Rewrites a failed call to the controller at `address` into an error a person can act on: gRPC's
 * transport text ("No connection established. Last error: …") becomes
 * `cannot reach the controller at ADDR (connection refused); …`. Errors the controller itself sent
 * (job not found, invalid argument) already read well and pass through. The code and `cause` are kept.
 */
export function explainControllerError(e: unknown, address: string): unknown {
  if (!IrisError.is(e) || fromServer(e)) return e;
  const raw = e.message;
  switch (e.code) {
    case 'IRIS_UNAVAILABLE': {
      const reason = TRANSPORT_REASONS.find(([re]) => re.test(raw))?.[1] ?? 'unavailable';
      return new IrisError('IRIS_UNAVAILABLE', `cannot reach the controller at ${address} (${reason}); ${HINT}`, { cause: e });
    }
    case 'IRIS_DEADLINE_EXCEEDED':
      return new IrisError('IRIS_DEADLINE_EXCEEDED', `the controller at ${address} did not answer in time; it may be overloaded or the address may point elsewhere (${HINT})`, { cause: e });
    case 'IRIS_UNAUTHENTICATED':
      return new IrisError('IRIS_UNAUTHENTICATED', `the controller at ${address} refused this client's credentials; run \`iris login\` with your API key, or set IRIS_AUTH_TOKEN to the cluster's token`, { cause: e });
    case 'IRIS_INTERNAL':
      if (/Received RST_STREAM|Protocol error|Response message parsing error/i.test(raw)) {
        return new IrisError('IRIS_INTERNAL', `the server at ${address} does not speak the Iris controller protocol (${HINT})`, { cause: e });
      }
      return e;
    default:
      return e;
  }
}

/** The one line the CLI prints for an error: its message with line breaks folded, never a stack. */
export function errorLine(e: unknown): string {
  const text = redactCredentials(e instanceof Error ? e.message : String(e));
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '').join('; ') || (e instanceof Error ? e.name : 'unknown error');
}
