// Lint guards what review misses: the dependency arrows between packages (from each package.json's
// `nx.tags`) and a handful of correctness rules. Formatting is not linted.
import nx from '@nx/eslint-plugin';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { IRIS_LAYERS } from './packages/iris/scripts/layers.mjs';

const LIBRARIES = ['scope:rigging', 'scope:iris', 'scope:fray', 'scope:executor', 'scope:pipeline'];

/**
 * The allowed arrows: `iris → rigging`, `fray → iris, rigging`, `executor → fray, rigging`,
 * `pipeline → executor, fray, rigging`. rigging depends on no package of ours; experiments may use
 * any library; nothing depends on pipeline (except experiments) or on experiments and tools.
 */
const ARROWS = {
  'scope:rigging': [],
  'scope:iris': ['scope:rigging'],
  'scope:fray': ['scope:iris', 'scope:rigging'],
  'scope:executor': ['scope:fray', 'scope:rigging'],
  'scope:pipeline': ['scope:executor', 'scope:fray', 'scope:rigging'],
  'scope:experiments': LIBRARIES,
  'scope:tools': ['scope:rigging', 'scope:iris', 'scope:fray', 'scope:executor'],
};

/**
 * Tests and benches may also start what the code under test only talks to: the executor's remote
 * tests and the pipeline's Fray-job tests and scale bench run a real Iris cluster (a devDependency),
 * which their product code never imports.
 */
const DEV_ARROWS = { ...ARROWS, 'scope:executor': [...ARROWS['scope:executor'], 'scope:iris'], 'scope:pipeline': [...ARROWS['scope:pipeline'], 'scope:iris'] };

function boundaries(arrows) {
  return [
    'error',
    {
      // A package's own tests import it by name to exercise the public exports map.
      allowCircularSelfDependency: true,
      // Node packages are never code-split, so a dynamic import() does not make a package lazy-loaded.
      checkDynamicDependenciesExceptions: ['@marin/**'],
      // The shared Vitest settings at the repository root belong to no package.
      allow: ['^(\\.\\./)+vitest\\.shared\\.js$'],
      depConstraints: Object.entries(arrows).map(([sourceTag, onlyDependOnLibsWithTags]) => ({
        sourceTag,
        onlyDependOnLibsWithTags,
      })),
    },
  ];
}

// The layers of packages/iris/src, lowest first (IRIS_LAYERS): enforced by the blocks of irisLayerBlocks() below.
const SIBLING_FILES = { regex: '^@marin/[^/]+/(src|dist)(/|$)', message: 'import the package entry point, not its files' };

/** The relative-import patterns that reach `higher` from a file of `layer` (both from IRIS_LAYERS). */
function irisImportPatterns(layer, higher) {
  const [top, sub] = layer.split('/');
  const [hTop, hSub] = higher.split('/');
  if (hTop !== top) return [`^(\\.\\./)+${higher}/`];
  if (sub === undefined) return [`^\\./${hSub}/`]; // the folder's own files reaching down into a layer above them
  if (hSub === undefined) return ['^\\.\\./[^/]+$']; // a sub-layer reaching up into its folder's own files
  return [`^\\.\\./${hSub}/`];
}

/** One block per iris layer forbidding relative imports of every layer above it. */
function irisLayerBlocks() {
  return IRIS_LAYERS.map((layer, i) => {
    const higher = IRIS_LAYERS.slice(i + 1);
    const subLayers = IRIS_LAYERS.filter((l) => l.startsWith(`${layer}/`));
    return {
      files: subLayers.length > 0 || layer.includes('/') ? [`packages/iris/src/${layer}/*.ts`] : [`packages/iris/src/${layer}/**`],
      // A unit test may exercise the seam between two layers (a client spec checked by the controller).
      ignores: ['packages/iris/src/**/*.test.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              SIBLING_FILES,
              ...higher.flatMap((h) =>
                irisImportPatterns(layer, h).map((regex) => ({ regex, message: `iris layers: ${layer}/ must not import ${h}/ (the order: packages/iris/scripts/layers.mjs)` })),
              ),
            ],
          },
        ],
      },
    };
  });
}

const TS_AND_JS = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.js', '**/*.mjs'];
const DEV_FILES = ['**/*.test.ts', '**/test/**', '**/bench/**', '**/*.config.ts'];

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/.nx/**',
      '**/src/gen/**',
      '**/.bench/**',
      '**/.screenshots/**',
      // Deliberately bad imports, linted by tools/module-boundaries' test under the path they name.
      'tools/module-boundaries/fixtures/**',
    ],
  },
  {
    files: TS_AND_JS,
    languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@nx': nx, '@typescript-eslint': tseslint.plugin },
    rules: {
      '@nx/enforce-module-boundaries': boundaries(ARROWS),
      'no-debugger': 'error',
      'no-dupe-else-if': 'error',
      'no-dupe-keys': 'error',
      'no-duplicate-case': 'error',
      'no-self-assign': 'error',
      'no-self-compare': 'error',
      'no-unreachable': 'error',
      'no-unsafe-finally': 'error',
      'no-unsafe-negation': 'error',
      'use-isnan': 'error',
      'valid-typeof': 'error',
      '@typescript-eslint/no-non-null-asserted-optional-chain': 'error',
      '@typescript-eslint/no-misused-new': 'error',
      '@typescript-eslint/prefer-namespace-keyword': 'error',
      // Sibling packages are reached through their exports map only.
      'no-restricted-imports': ['error', { patterns: [SIBLING_FILES] }],
    },
  },
  {
    files: DEV_FILES,
    rules: { '@nx/enforce-module-boundaries': boundaries(DEV_ARROWS) },
  },
  {
    // Fray's client API (src/client) is what the backends implement; it never imports a backend.
    // Choosing a backend (currentClient, createDefaultClient) lives in src/backends.
    files: ['packages/fray/src/client/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^@marin/[^/]+/(src|dist)(/|$)', message: 'import the package entry point, not its files' },
            { regex: '(^|/)backends/', message: "fray's client API must not import its backends (src/backends)" },
          ],
        },
      ],
    },
  },
  {
    // The executor's core never reaches up into its CLI layer (src/main, src/cli); only the barrel
    // re-exports it.
    files: ['packages/executor/src/**'],
    ignores: ['packages/executor/src/main/**', 'packages/executor/src/cli/**', 'packages/executor/src/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            SIBLING_FILES,
            { regex: '(^|/)(main|cli)/[^/]+\\.js$', message: "the executor's core must not import its CLI layer (src/main, src/cli)" },
          ],
        },
      ],
    },
  },
  // Inside iris, the folders of src/ are layers (IRIS_LAYERS): no import points up the order.
  ...irisLayerBlocks(),
);
