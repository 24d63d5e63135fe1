/**
 * @packageDocumentation
 * `@marin/pipeline/testing`: test servers and helpers for code built on the pipeline.
 */
export { startHubServer } from './hub-server.js';
export type { HostileListing, HubFault, HubRequest, HubServerHandle, StartHubServerOptions } from './hub-server.js';
