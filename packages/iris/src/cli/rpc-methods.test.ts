import { describe, expect, it } from 'vitest';
import { ClusterServiceService } from '../gen/iris/v1/cluster.js';
import { ControllerServiceService } from '../gen/iris/v1/controller.js';
import { findRpcMethod, parseRpcBody } from './rpc-command.js';
import { CONTROLLER_RPC_METHODS } from './rpc-methods.js';

describe('iris rpc method table', () => {
  it('has every method of both services, with the message types their serializers use', () => {
    const paths = [...Object.values(ControllerServiceService), ...Object.values(ClusterServiceService)].map((d) => d.path).sort();
    expect(CONTROLLER_RPC_METHODS.map((m) => m.definition.path).sort()).toEqual(paths);
    for (const m of CONTROLLER_RPC_METHODS) {
      // An empty message decodes to the type's defaults: the same fields as the table's type.
      const decoded = m.definition.responseDeserialize(Buffer.alloc(0)) as object;
      expect(Object.keys(decoded).sort(), m.name).toEqual(Object.keys(m.response.fromJSON({}) as object).sort());
      const request = m.definition.requestDeserialize(Buffer.alloc(0)) as object;
      expect(Object.keys(request).sort(), m.name).toEqual(Object.keys(m.request.fromJSON({}) as object).sort());
    }
  });

  it('finds methods in any letter case and refuses unknown and client-streaming ones', () => {
    expect(findRpcMethod('getjobstatus').name).toBe('GetJobStatus');
    expect(findRpcMethod('GetAutoscalerStatus').service).toBe('ClusterService');
    expect(() => findRpcMethod('DropTables')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(() => findRpcMethod('UploadBundle')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });

  it('reads the request as a proto3 JSON object and refuses anything else', () => {
    const m = findRpcMethod('GetJobStatus');
    expect(parseRpcBody(m, '{"jobId": "/alice/x", "includeTasks": true}')).toMatchObject({ jobId: '/alice/x', includeTasks: true });
    expect(parseRpcBody(m, undefined)).toMatchObject({ jobId: '' });
    expect(() => parseRpcBody(m, '{nope')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(() => parseRpcBody(m, '[1]')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});
