import { describe, expect, it } from 'vitest';
import { Entrypoint, ResourceConfig, remote } from '@marin/fray';
import type { CallableEntrypoint } from '@marin/fray';
import { stepJobRequest } from './step-job.js';

describe('stepJobRequest()', () => {
  const run = () => undefined;

  it('uses the step’s resources over the callable’s, and the callable’s env and groups', () => {
    const rc = remote((_c: { n: number }) => undefined, { resources: ResourceConfig.withGpu('H100'), envVars: { A: '1' }, dependencyGroups: ['html'] });
    const stepResources = ResourceConfig.withCpu({ cpu: 8 });
    const req = stepJobRequest({ label: 'tokenized/fineweb-ab12cd', remote: rc, resources: stepResources, run });
    expect(req.name).toMatch(/^tokenized-fineweb-ab12cd-[0-9a-f]{8}$/);
    expect(req.resources).toBe(stepResources);
    expect(req.environment?.envVars).toMatchObject({ A: '1' });
    expect(req.environment?.dependencyGroups).toEqual(['html']);
  });

  it('falls back to the callable’s resources, then withCpu(); null groups stay omitted', () => {
    const rc = remote((_c: unknown) => undefined, { resources: ResourceConfig.withGpu('H100') });
    expect(stepJobRequest({ label: 's', remote: rc, run }).resources).toBe(rc.resources);
    expect(stepJobRequest({ label: 's', remote: rc, run }).environment).not.toHaveProperty('dependencyGroups');
    expect(stepJobRequest({ label: 's', run }).resources).toEqual(ResourceConfig.withCpu());
  });

  it('runs `run` in-process and carries the reentry', () => {
    const reentry = Entrypoint.fromBinary('node', ['main.ts']);
    const ep = stepJobRequest({ label: 's', run, reentry }).entrypoint as CallableEntrypoint;
    expect(ep.fn).toBe(run);
    expect(ep.reentry).toBe(reentry);
  });
});
