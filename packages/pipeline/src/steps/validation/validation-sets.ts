import { ExecutorStep, outputPathOf } from '@marin/executor';
import type { InputName } from '@marin/executor';
import { offlineValidationDataPath } from '../../assets.js';
import { PipelineError } from '../../errors.js';
import { defaultDownload } from '../download/default-download.js';
import { defaultTokenize } from '../tokenize/default-tokenize.js';
import type { DefaultTokenizeConfig } from '../tokenize/default-tokenize.js';

/** A suite of validation sets published together in one hub dataset repository (Paloma's layout). */
export interface ValidationSuite {
  /** The suite's name: the prefix of its sets' names and the tag of their metrics. */
  name: string;
  /** The hub dataset holding every set. */
  hubId: string;
  /** The pinned revision of `hubId`; `null` only for a shipped suite. */
  revision: string | null;
  /** The sets: name (within the suite) → directory of its documents in the repository. */
  sets: Readonly<Record<string, string>>;
  /** Globs of the files downloaded (every set's validation documents). */
  files: readonly string[];
  /** A directory shipped with this package that replaces the hub (tests, the quickstart), or `null`. */
  shipped: string | null;
}

/**
 * Paloma (`allenai/paloma`), the validation suite of Marin's `default_validation_sets`, at the revision Marin
 * pins: one set per source, each its `val` split.
 */
export const PALOMA: ValidationSuite = Object.freeze({
  name: 'paloma',
  hubId: 'allenai/paloma',
  revision: '65cd6fc',
  sets: Object.freeze({
    '4chan': '4chan_meta_sep/val',
    c4_100_domains: 'c4_100_domains/val',
    c4_en: 'c4_en/val',
    'dolma-v1_5': 'dolma-v1_5/val',
    dolma_100_programing_languages: 'dolma_100_programing_languages/val',
    dolma_100_subreddits: 'dolma_100_subreddits/val',
    'falcon-refinedweb': 'falcon-refinedweb/val',
    gab: 'gab/val',
    m2d2_s2orc_unsplit: 'm2d2_s2orc_unsplit/val',
    m2d2_wikipedia_unsplit: 'm2d2_wikipedia_unsplit/val',
    manosphere_meta_sep: 'manosphere_meta_sep/val',
    mc4: 'mc4/val',
    ptb: 'ptb/val',
    redpajama: 'redpajama/val',
    twitterAAE_HELM_fixed: 'twitterAAE_HELM_fixed/val',
    wikitext_103: 'wikitext_103/val',
  }),
  files: Object.freeze(['*/val/val*.jsonl.gz']),
  shipped: null,
});

/**
 * A small Paloma-shaped suite shipped with this package, so tests and the quickstart validate offline through
 * the same download and tokenize steps: `offline/gazetteer` and `offline/chronicle`, six short pages each.
 */
export const OFFLINE_VALIDATION: ValidationSuite = Object.freeze({
  name: 'offline',
  hubId: 'marin-community/offline-validation',
  revision: null,
  sets: Object.freeze({ gazetteer: 'gazetteer/val', chronicle: 'chronicle/val' }),
  files: Object.freeze(['*/val/*.jsonl.gz']),
  shipped: offlineValidationDataPath(),
});

/** Every registered validation suite by name. */
export const VALIDATION_SUITES: Readonly<Record<string, ValidationSuite>> = Object.freeze({ paloma: PALOMA, offline: OFFLINE_VALIDATION });

/** Options of {@link defaultValidationSets}. */
export interface DefaultValidationSetsOptions {
  /** The suite: a registered name or a suite of your own. @default "paloma" (Marin's default) */
  suite?: string | ValidationSuite;
  /** Prefix of the tokenize steps' names. @default "tokenized/" as in Marin */
  basePath?: string;
}

/**
 * Marin's `default_validation_sets(tokenizer)`: one tokenize step per set of the suite, named
 * `<suite>/<set>` (the key Levanter tags its loss and bits-per-byte with; every set is also tagged with the
 * suite, so Levanter reports the suite's aggregate too). The suite is downloaded once (`raw/<suite>`, its
 * pinned revision, only its validation files); each set is tokenized from its directory as a validation split.
 *
 * @example
 * const sets = defaultValidationSets('marin-tiny-bpe', { suite: 'offline' });
 * // { 'offline/gazetteer': ExecutorStep, 'offline/chronicle': ExecutorStep }
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for a suite name that is not registered
 */
export function defaultValidationSets(tokenizer: string | ExecutorStep | InputName, options: DefaultValidationSetsOptions = {}): Record<string, ExecutorStep<DefaultTokenizeConfig>> {
  const suite = suiteOf(options.suite ?? 'paloma');
  const base = (options.basePath ?? 'tokenized/').replace(/^tokenized\/?/, '');
  const raw = defaultDownload(`raw/${suite.name}`, suite.hubId, {
    revision: suite.revision,
    hfUrlsGlob: suite.files,
    sourceUrlOverride: suite.shipped,
  });
  const out: Record<string, ExecutorStep<DefaultTokenizeConfig>> = {};
  for (const [set, dir] of Object.entries(suite.sets)) {
    const name = `${suite.name}/${set}`;
    const step = defaultTokenize(`${base}${name}`, outputPathOf(raw, dir), tokenizer, { isValidation: true });
    // Marin's TokenizeConfig.tags: the tags of the set's metrics (not versioned).
    out[name] = new ExecutorStep<DefaultTokenizeConfig>({ name: step.name, fn: step.fn, config: { ...step.config, tags: [suite.name] } });
  }
  return out;
}

function suiteOf(suite: string | ValidationSuite): ValidationSuite {
  if (typeof suite !== 'string') return suite;
  const found = VALIDATION_SUITES[suite];
  if (found === undefined) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `no validation suite "${suite}" (registered: ${Object.keys(VALIDATION_SUITES).join(', ')})`, {
      details: { field: 'suite', suite },
    });
  }
  return found;
}
