import { Metadata } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { IRIS_ERROR_CODE_METADATA_KEY, IrisError } from '../errors.js';
import { errorLine, explainControllerError } from './cli-errors.js';

function transportError(code: 'IRIS_UNAVAILABLE' | 'IRIS_DEADLINE_EXCEEDED', details: string): IrisError {
  const cause = Object.assign(new Error(details), { code: 14, details, metadata: new Metadata() });
  return new IrisError(code, details, { cause });
}

describe('explainControllerError()', () => {
  it('names the address and the reason of a refused connection, keeping code and cause', () => {
    const raw = transportError('IRIS_UNAVAILABLE', 'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1. Resolution note: ');
    const e = explainControllerError(raw, '127.0.0.1:1');
    expect(e).toMatchObject({ code: 'IRIS_UNAVAILABLE', cause: raw });
    expect((e as Error).message.startsWith('cannot reach the controller at 127.0.0.1:1 (connection refused)')).toBe(true);
  });

  it('passes through errors the controller sent itself', () => {
    const metadata = new Metadata();
    metadata.set(IRIS_ERROR_CODE_METADATA_KEY, 'IRIS_UNAVAILABLE');
    const sent = new IrisError('IRIS_UNAVAILABLE', 'controller is shutting down', { cause: Object.assign(new Error('x'), { code: 14, metadata }) });
    expect(explainControllerError(sent, 'a:1')).toBe(sent);
    const other = new Error('plain');
    expect(explainControllerError(other, 'a:1')).toBe(other);
  });
});

describe('errorLine()', () => {
  it('folds a multi-line message into one line', () => {
    expect(errorLine(new Error('first\nsecond\n'))).toBe('first; second');
    expect(errorLine('text')).toBe('text');
  });
});
