import { describe, expect, it } from 'vitest';
import { attributesToWire, parseAttributeList, workerDevice } from './worker-attributes.js';

describe('parseAttributeList()', () => {
  it('stores numeric values as numbers and keeps everything after the first =', () => {
    expect(parseAttributeList('region=us-east1, rack=7,ratio=0.5,expr=a=b,empty=')).toEqual({
      region: 'us-east1',
      rack: 7,
      ratio: 0.5,
      expr: 'a=b',
      empty: '',
    });
    expect(parseAttributeList('')).toEqual({});
  });

  it('rejects an entry without a key', () => {
    expect(() => parseAttributeList('region')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(() => parseAttributeList('=x')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});

describe('workerDevice()', () => {
  it('describes a local CPU worker as not preemptible', () => {
    expect(workerDevice({ attributes: {} })).toMatchObject({
      attributes: { 'device-type': 'cpu', preemptible: 'false' },
      device: { kind: { $case: 'cpu' } },
      tpu: undefined,
    });
  });

  it('simulates one VM of a TPU slice from the topology table', () => {
    const d = workerDevice({ attributes: { zone: 'z1' }, tpu: { variant: 'v6e-16', name: 'slice-b', workerId: 3 } });
    expect(d.attributes).toEqual({
      'device-type': 'tpu',
      'device-variant': 'v6e-16',
      'tpu-name': 'slice-b',
      'tpu-worker-id': 3,
      'tpu-vm-count': 4,
      simulated: 'true',
      preemptible: 'false',
      zone: 'z1',
    });
    expect(d.device).toEqual({ kind: { $case: 'tpu', value: { variant: 'v6e-16', topology: '', count: 4 } } });
    expect(d.tpu).toEqual({ name: 'slice-b', workerId: 3, acceleratorType: 'v6e-16' });
  });

  it('advertises GPUs with the canonical lower-case variant', () => {
    expect(workerDevice({ attributes: {}, gpu: { variant: 'H100', count: 8 } }).attributes).toMatchObject({
      'device-type': 'gpu',
      'device-variant': 'h100',
      'gpu-variant': 'h100',
      'gpu-count': 8,
    });
  });

  it('rejects an unknown TPU variant and a worker id outside the slice', () => {
    expect(() => workerDevice({ attributes: {}, tpu: { variant: 'v7-3', name: 's', workerId: 0 } })).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }),
    );
    expect(() => workerDevice({ attributes: {}, tpu: { variant: 'v5litepod-8', name: 's', workerId: 1 } })).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }),
    );
  });
});

describe('attributesToWire()', () => {
  it('sends integers as int_value and other numbers as float_value', () => {
    expect(attributesToWire({ a: 'x', b: 3, c: 1.5 })).toEqual({
      a: { v: { $case: 'stringValue', value: 'x' } },
      b: { v: { $case: 'intValue', value: 3 } },
      c: { v: { $case: 'floatValue', value: 1.5 } },
    });
  });
});
