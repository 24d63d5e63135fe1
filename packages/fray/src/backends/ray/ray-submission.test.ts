import { describe, expect, it } from 'vitest';
import { Entrypoint } from '../../request/entrypoint.js';
import { resolveJobRequest } from '../../request/job-request.js';
import { ResourceConfig } from '../../resources/resource-config.js';
import { buildRaySubmission } from './ray-submission.js';

const options = { submissionId: 'fray-u-job', workdir: '/work/my repo', env: { FRAY_RAY_ADDRESS: 'http://h:1' }, runtimeEnv: {}, python: 'python' };
const submission = (resources: ResourceConfig, replicas?: number) =>
  buildRaySubmission(
    resolveJobRequest({ name: 'job', entrypoint: Entrypoint.fromBinary('node', ['-e', "console.log('x')"]), resources, ...(replicas ? { replicas } : {}) }),
    options,
  );

describe('buildRaySubmission()', () => {
  it('maps cpu, memory and GPUs to the entrypoint resources and quotes the command after a cd', () => {
    const s = submission(ResourceConfig.withGpu('H100', { count: 2, cpu: 3, ram: '8g' }));
    expect(s).toMatchObject({ submission_id: 'fray-u-job', entrypoint_num_cpus: 3, entrypoint_num_gpus: 2, entrypoint_memory: 8 * 2 ** 30 });
    expect(s.entrypoint).toBe(`cd '/work/my repo' && exec node -e 'console.log('\\''x'\\'')'`);
    expect(s.runtime_env.env_vars).toMatchObject({ FRAY_JOB_ID: 'fray-u-job', FRAY_TASK_INDEX: '0', FRAY_NUM_TASKS: '1', FRAY_RAY_ADDRESS: 'http://h:1', JAX_PLATFORMS: '' });
    expect(s.metadata).toEqual({ fray_name: 'job', fray_replicas: '1' });
  });

  it('asks a one-VM TPU slice for its chips and the slice head resource', () => {
    expect(submission(ResourceConfig.withTpu('v4-8')).entrypoint_resources).toEqual({ TPU: 4, 'TPU-v4-8-head': 1 });
  });

  it('runs a gang as one job whose driver places a bundle per replica, with a head resource per slice', () => {
    const s = submission(ResourceConfig.withTpu('v5litepod-16', { sliceCount: 2 }));
    expect(s.entrypoint_resources).toBeUndefined();
    expect(s.entrypoint).toBe(`cd '/work/my repo' && exec python -c "$FRAY_GANG_DRIVER"`);
    const spec = JSON.parse(s.runtime_env.env_vars['FRAY_GANG_SPEC'] ?? '{}') as { bundles: Record<string, number>[]; strategy: string };
    expect(spec.strategy).toBe('STRICT_SPREAD');
    expect(spec.bundles).toHaveLength(8);
    expect(spec.bundles.map((b) => b['TPU-v5litepod-16-head'] ?? 0)).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
    expect(spec.bundles[1]).toMatchObject({ CPU: 32, TPU: 4 });
    expect(submission(ResourceConfig.withCpu({ cpu: 0.5 }), 3).runtime_env.env_vars['FRAY_GANG_SPEC']).toContain('"strategy":"SPREAD"');
  });

  it('writes shipped files into a private dir and passes their paths', () => {
    const s = buildRaySubmission(
      resolveJobRequest({ name: 'job', entrypoint: Entrypoint.fromBinary('cat', ['step_config.json'], { files: { 'step_config.json': '{"a": 1}' } }) }),
      options,
    );
    expect(s.entrypoint).toContain(`printf '%s' '{"a": 1}' > "$FRAY_FILES/"step_config.json`);
    expect(s.entrypoint.endsWith(`cat "$FRAY_FILES/"step_config.json`)).toBe(true);
  });
});
