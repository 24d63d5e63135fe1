import { VersionedValue } from '@marin/executor';
import type { ExecutorStep, InputName } from '@marin/executor';
import { PipelineError } from '../../errors.js';
import type { DefaultTrainConfig } from '../train/default-train.js';

/** What an eval step takes from the train step it evaluates (the same fields, under the same names, in every eval config). */
export interface TrainedModelFields {
  model_path: InputName;
  model: unknown;
  cache_path: unknown;
  component_name: string;
  tags: string[];
}

/**
 * The train step's newest Hugging Face export, model, cache and tags, as an eval step's config carries them, and
 * the train step's base name (`{base}` of `evaluation/…/{base}`).
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID (`details.field: 'trainStep'`) when `trainStep` was not made by `defaultTrain`
 */
export function trainedModelOf(trainStep: ExecutorStep<DefaultTrainConfig>, caller: string): { base: string; fields: TrainedModelFields; train: Partial<DefaultTrainConfig> } {
  const train = trainStep.config as Partial<DefaultTrainConfig> | undefined;
  if (train === undefined || !(train.model instanceof VersionedValue) || train.cache_path === undefined) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `${caller} needs a step made by defaultTrain, got ${String(trainStep)}`, {
      details: { field: 'trainStep' },
    });
  }
  return {
    base: trainStep.name.split('/').at(-1) ?? trainStep.name,
    train,
    fields: {
      model_path: trainStep.cd('hf'),
      // Already part of the train step's version, which this step depends on.
      model: train.model.value,
      cache_path: train.cache_path,
      component_name: train.component_name ?? 'validation',
      tags: train.tags?.value ?? [],
    },
  };
}
