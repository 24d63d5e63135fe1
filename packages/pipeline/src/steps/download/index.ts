export { defaultDownload } from './default-download.js';
export type { DefaultDownloadConfig, DefaultDownloadOptions } from './default-download.js';
export { download } from './download.js';
export type { DownloadOptions, DownloadResult } from './download.js';
export { DEFAULT_HUB_URL, DownloadConfigSchema, parseDownloadConfig } from './download-config.js';
export type { DownloadConfig, DownloadConfigInput } from './download-config.js';
export { parseRateLimitResetSeconds } from './rate-limit-header.js';
export { HUB_MAX_ATTEMPTS, hubRetryDelayMs } from './retry-schedule.js';
