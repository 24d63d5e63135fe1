import { buildExperimentInfo, experimentInfoPath, infoFileText, writeTextFile } from '../run/info-files.js';
import type { StepInfo } from '../run/info-files.js';
import type { ExecutorLogger } from '../logger.js';
import type { ArtifactNode } from './lower.js';
import { bodyOf } from './remote-body.js';

/** The `.executor_info`-shaped entry of an artifact: its identity attributes as `config`, its deps' output paths. */
export function artifactStepInfo(node: ArtifactNode): StepInfo {
  const h = node.handle;
  const config: Record<string, unknown> = { fingerprint: node.fingerprint, version: h.version, result_type: h.artifactType.resultType, deps: node.depRefs };
  if (h.expectedFingerprint !== null) config['expected_fingerprint'] = h.expectedFingerprint;
  return {
    name: h.name,
    fn_name: bodyOf(h).name === '' ? '<anonymous>' : bodyOf(h).name,
    config,
    override_output_path: h.overridePath ?? `${h.name}/${h.version}`,
    version: {},
    dependencies: node.deps.map((d) => d.outputPath),
    output_path: node.outputPath,
  };
}

/**
 * Writes the run's experiment file, `<prefix>/experiments/<caller>-<hash6>.json`, listing every artifact of the
 * graph as `ExecutorStep` runs do, so `marin gc` counts these `{name}/{version}` outputs as referenced.
 */
export async function writeArtifactExperiment(prefix: string, nodes: readonly ArtifactNode[], logger: ExecutorLogger): Promise<string> {
  const infos = nodes.map(artifactStepInfo);
  const base = `${prefix.endsWith('/') ? prefix.slice(0, -1) : prefix}/experiments`;
  const url = experimentInfoPath(base, infos);
  await writeTextFile(url, infoFileText(await buildExperimentInfo(prefix, infos), logger));
  return url;
}
