import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { levanterLockPath } from '../assets.js';
import { levanterRuntime, levanterTokenizerPath, shippedEvalTaskPath } from './levanter-runtime.js';

const CPU = { kind: 'cpu' } as const;

describe('levanterRuntime()', () => {
  it('disables W&B without a key and pins JAX to the CPU on a CPU device', () => {
    expect(levanterRuntime(CPU, {}, {})).toEqual({ envVars: { JAX_PLATFORMS: 'cpu', WANDB_MODE: 'disabled' }, wandb: false, offline: false });
  });

  it('uses W&B when a key is present, unless WANDB_MODE turns it off', () => {
    expect(levanterRuntime({ kind: 'tpu', variant: 'v4-8' }, {}, { WANDB_API_KEY: 'k' })).toEqual({ envVars: {}, wandb: true, offline: false });
    expect(levanterRuntime(CPU, { WANDB_MODE: 'offline' }, { WANDB_API_KEY: 'k' }).wandb).toBe(false);
  });

  it('turns on every Hugging Face offline switch when HF_HUB_OFFLINE is set, and lets env_vars win', () => {
    const runtime = levanterRuntime(CPU, { JAX_PLATFORMS: 'cpu,tpu' }, { HF_HUB_OFFLINE: '1' });
    expect(runtime.offline).toBe(true);
    expect(runtime.envVars).toMatchObject({ HF_HUB_OFFLINE: '1', HF_DATASETS_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', JAX_PLATFORMS: 'cpu,tpu' });
  });
});

describe('package paths', () => {
  it('finds the lock, the shipped tokenizer and the shipped eval task', () => {
    expect(existsSync(levanterLockPath())).toBe(true);
    expect(existsSync(`${levanterTokenizerPath('marin-tiny-bpe')}/tokenizer.json`)).toBe(true);
    expect(levanterTokenizerPath('meta-llama/Llama-3.1-8B')).toBe('meta-llama/Llama-3.1-8B');
    expect(levanterTokenizerPath('gs://bucket/tok')).toBe('gs://bucket/tok');
    expect(shippedEvalTaskPath('tiny_mc')).toMatch(/assets\/eval\/tiny_mc\.jsonl$/);
    expect(shippedEvalTaskPath('hellaswag')).toBeNull();
  });
});
