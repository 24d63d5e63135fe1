import { describe, expect, it } from 'vitest';
import { createEnvironment } from './environment.js';

describe('createEnvironment()', () => {
  it('forwards HF_TOKEN, WANDB_API_KEY and MARIN_PREFIX when set and adds the literal defaults', () => {
    const env = createEnvironment({}, { HF_TOKEN: 'hf', WANDB_API_KEY: 'wb', MARIN_PREFIX: 'gs://b', SECRET: 'no' });
    expect(env.envVars).toEqual({
      HF_TOKEN: 'hf',
      WANDB_API_KEY: 'wb',
      MARIN_PREFIX: 'gs://b',
      HF_DATASETS_TRUST_REMOTE_CODE: '1',
      TOKENIZERS_PARALLELISM: 'false',
    });
  });

  it('forwards nothing that is unset', () => {
    expect(createEnvironment({}, {}).envVars).toEqual({ HF_DATASETS_TRUST_REMOTE_CODE: '1', TOKENIZERS_PARALLELISM: 'false' });
  });

  it("lets the caller's envVars win", () => {
    const env = createEnvironment({ envVars: { HF_TOKEN: 'mine', TOKENIZERS_PARALLELISM: 'true' } }, { HF_TOKEN: 'theirs' });
    expect(env.envVars).toMatchObject({ HF_TOKEN: 'mine', TOKENIZERS_PARALLELISM: 'true' });
  });

  it('keeps the other fields and freezes the result', () => {
    const env = createEnvironment({ dependencyGroups: ['gpu'], npmPackages: ['left-pad@1'], setupCommands: [['true']], workspace: 'w' }, {});
    expect(env).toMatchObject({ dependencyGroups: ['gpu'], npmPackages: ['left-pad@1'], setupCommands: [['true']], workspace: 'w' });
    expect(Object.isFrozen(env)).toBe(true);
  });

  it('rejects malformed options with FRAY_INVALID_ARGUMENT', () => {
    expect(() => createEnvironment({ envVars: { A: 1 as unknown as string } }, {})).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    expect(() => createEnvironment({ bogus: true } as object, {})).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });
});
