import { listFiles } from '@huggingface/hub';
import type { RepoDesignation } from '@huggingface/hub';
import type { SourceFile } from './source-file.js';

/** Where a hub repository lives and how to reach it. */
export interface HubRepo {
  /** Hub base URL without a trailing slash. */
  hubUrl: string;
  /** Marin's `hf_repo_type_prefix`: `"datasets"`, `"spaces"`, or `""` for a model repo. */
  typePrefix: string;
  /** `org/name`. */
  repoId: string;
  /** Pinned revision. */
  revision: string;
}

function designation(repo: HubRepo): RepoDesignation {
  const type = repo.typePrefix === 'datasets' ? 'dataset' : repo.typePrefix === 'spaces' ? 'space' : 'model';
  return { type, name: repo.repoId };
}

/**
 * The `resolve` URL of one file: `<hub>/[<prefix>/]<repo>/resolve/<revision>/<path>`, each segment
 * percent-encoded.
 */
export function hubFileUrl(repo: HubRepo, path: string): string {
  const prefix = repo.typePrefix === '' ? '' : `${repo.typePrefix}/`;
  const rel = path.split('/').map(encodeURIComponent).join('/');
  return `${repo.hubUrl}/${prefix}${repo.repoId}/resolve/${encodeURIComponent(repo.revision)}/${rel}`;
}

/**
 * Every file of `repo` at its revision, through the hub's tree API (`recursive=true`, following
 * `Link: rel="next"` pages). `hubFetch` carries the credentials and turns error statuses into
 * PipelineErrors.
 */
export async function listHubFiles(repo: HubRepo, hubFetch: typeof fetch): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for await (const entry of listFiles({
    repo: designation(repo),
    revision: repo.revision,
    recursive: true,
    hubUrl: repo.hubUrl,
    fetch: hubFetch,
  })) {
    if (entry.type !== 'file') continue;
    out.push({ path: entry.path, size: entry.size, url: hubFileUrl(repo, entry.path) });
  }
  return out;
}
