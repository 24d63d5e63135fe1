import {
  BundleChunk,
  ControllerHealthCheckRequest,
  ControllerHealthCheckResponse,
  ControllerServiceService,
  CreateApiKeyRequest,
  CreateApiKeyResponse,
  ExecInTaskRequest,
  FetchBundleRequest,
  FetchLogsResponse,
  FollowLogsResponse,
  GetClusterStatusRequest,
  GetClusterStatusResponse,
  GetJobStatesRequest,
  GetJobStatesResponse,
  GetJobStatusRequest,
  GetJobStatusResponse,
  GetTaskStatusRequest,
  GetTaskStatusResponse,
  GetUserBudgetRequest,
  GetUserBudgetResponse,
  HasBundleRequest,
  HasBundleResponse,
  LaunchJobRequest,
  LaunchJobResponse,
  ListApiKeysRequest,
  ListApiKeysResponse,
  ListAuditLogRequest,
  ListAuditLogResponse,
  ListEndpointsRequest,
  ListEndpointsResponse,
  ListJobsRequest,
  ListJobsResponse,
  ListTasksRequest,
  ListTasksResponse,
  ListUserBudgetsRequest,
  ListUserBudgetsResponse,
  ListWorkersRequest,
  ListWorkersResponse,
  LogQuery,
  PushLogsRequest,
  PushLogsResponse,
  RegisterEndpointRequest,
  RegisterEndpointResponse,
  RegisterRequest,
  RegisterResponse,
  ReportAttemptRequest,
  ReportAttemptResponse,
  RevokeApiKeyRequest,
  RevokeApiKeyResponse,
  SetUserBudgetRequest,
  SetUserBudgetResponse,
  TerminateJobRequest,
  TerminateJobResponse,
  UnregisterEndpointRequest,
  UnregisterEndpointResponse,
  UploadBundleResponse,
  WhoAmIRequest,
  WhoAmIResponse,
} from '../gen/iris/v1/controller.js';
import {
  CheckpointControllerRequest,
  CheckpointControllerResponse,
  ClusterServiceService,
  GetAutoscalerStatusRequest,
  GetAutoscalerStatusResponse,
  GetProcessLogsRequest,
  GetProcessLogsResponse,
  GetProcessStatusRequest,
  ProcessStatus,
  ProfileChunk,
  ProfileProcessRequest,
  QueryStateRequest,
  QueryStateResponse,
} from '../gen/iris/v1/cluster.js';
import { ExecOutput } from '../gen/iris/v1/types.js';

/** A generated message type: what `iris rpc` needs to read JSON in and write JSON out. */
export interface MessageType {
  fromJSON(object: unknown): unknown;
  toJSON(message: never): unknown;
}

/** A method of a service definition, as grpc-js sees it. */
export interface MethodDefinition {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  requestSerialize(value: never): Buffer;
  requestDeserialize(value: Buffer): unknown;
  responseDeserialize(value: Buffer): unknown;
}

/** One callable method: its definition and its request and response types. */
export interface RpcMethod {
  readonly service: 'ControllerService' | 'ClusterService';
  readonly name: string;
  readonly definition: MethodDefinition;
  readonly request: MessageType;
  readonly response: MessageType;
}

// The generated service definitions carry serializers but not the message types, so the JSON forms
// need this table; rpc-methods.test.ts checks it against both service definitions.
const CONTROLLER: Record<keyof typeof ControllerServiceService, readonly [MessageType, MessageType]> = {
  launchJob: [LaunchJobRequest, LaunchJobResponse],
  getJobStatus: [GetJobStatusRequest, GetJobStatusResponse],
  getJobStates: [GetJobStatesRequest, GetJobStatesResponse],
  listJobs: [ListJobsRequest, ListJobsResponse],
  terminateJob: [TerminateJobRequest, TerminateJobResponse],
  listTasks: [ListTasksRequest, ListTasksResponse],
  getTaskStatus: [GetTaskStatusRequest, GetTaskStatusResponse],
  register: [RegisterRequest, RegisterResponse],
  listWorkers: [ListWorkersRequest, ListWorkersResponse],
  pushLogs: [PushLogsRequest, PushLogsResponse],
  fetchLogs: [LogQuery, FetchLogsResponse],
  followLogs: [LogQuery, FollowLogsResponse],
  registerEndpoint: [RegisterEndpointRequest, RegisterEndpointResponse],
  unregisterEndpoint: [UnregisterEndpointRequest, UnregisterEndpointResponse],
  listEndpoints: [ListEndpointsRequest, ListEndpointsResponse],
  hasBundle: [HasBundleRequest, HasBundleResponse],
  uploadBundle: [BundleChunk, UploadBundleResponse],
  fetchBundle: [FetchBundleRequest, BundleChunk],
  getClusterStatus: [GetClusterStatusRequest, GetClusterStatusResponse],
  healthCheck: [ControllerHealthCheckRequest, ControllerHealthCheckResponse],
  setUserBudget: [SetUserBudgetRequest, SetUserBudgetResponse],
  getUserBudget: [GetUserBudgetRequest, GetUserBudgetResponse],
  listUserBudgets: [ListUserBudgetsRequest, ListUserBudgetsResponse],
  reportAttempt: [ReportAttemptRequest, ReportAttemptResponse],
  whoAmI: [WhoAmIRequest, WhoAmIResponse],
  createApiKey: [CreateApiKeyRequest, CreateApiKeyResponse],
  listApiKeys: [ListApiKeysRequest, ListApiKeysResponse],
  revokeApiKey: [RevokeApiKeyRequest, RevokeApiKeyResponse],
  listAuditLog: [ListAuditLogRequest, ListAuditLogResponse],
  execInTask: [ExecInTaskRequest, ExecOutput],
};

const CLUSTER: Record<keyof typeof ClusterServiceService, readonly [MessageType, MessageType]> = {
  getAutoscalerStatus: [GetAutoscalerStatusRequest, GetAutoscalerStatusResponse],
  checkpointController: [CheckpointControllerRequest, CheckpointControllerResponse],
  queryState: [QueryStateRequest, QueryStateResponse],
  getProcessStatus: [GetProcessStatusRequest, ProcessStatus],
  profileProcess: [ProfileProcessRequest, ProfileChunk],
  getProcessLogs: [GetProcessLogsRequest, GetProcessLogsResponse],
};

function methodsOf(
  service: RpcMethod['service'],
  definitions: Record<string, MethodDefinition>,
  types: Record<string, readonly [MessageType, MessageType]>,
): RpcMethod[] {
  return Object.entries(types).map(([key, [request, response]]) => {
    const definition = definitions[key]!;
    return { service, name: definition.path.slice(definition.path.lastIndexOf('/') + 1), definition, request, response };
  });
}

/** Every method the controller serves, by its wire name (`LaunchJob`, `GetAutoscalerStatus`, …). */
export const CONTROLLER_RPC_METHODS: readonly RpcMethod[] = [
  ...methodsOf('ControllerService', ControllerServiceService as unknown as Record<string, MethodDefinition>, CONTROLLER),
  ...methodsOf('ClusterService', ClusterServiceService as unknown as Record<string, MethodDefinition>, CLUSTER),
];
