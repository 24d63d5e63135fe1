import { timingSafeEqual, createHash } from 'node:crypto';
import { InterceptingCall } from '@grpc/grpc-js';
import type { Interceptor, Metadata } from '@grpc/grpc-js';

/** The metadata key carrying `Bearer <token>`. */
export const AUTHORIZATION_METADATA_KEY = 'authorization';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/**
 * True when `metadata` carries `authorization: Bearer <token>`, compared in constant time.
 * With no token configured every call is allowed.
 */
export function bearerTokenMatches(metadata: Metadata, token: string | undefined): boolean {
  if (token === undefined || token === '') return true;
  const sent = metadata.get(AUTHORIZATION_METADATA_KEY)[0];
  if (typeof sent !== 'string' || !sent.startsWith('Bearer ')) return false;
  // Hash both sides so the comparison length never depends on the secret.
  return timingSafeEqual(digest(sent.slice('Bearer '.length)), digest(token));
}

/** A client interceptor adding `authorization: Bearer <token>` to every call (unary and streaming). */
export function createAuthInterceptor(token: string): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(AUTHORIZATION_METADATA_KEY, `Bearer ${token}`);
        next(metadata, listener);
      },
    });
}
