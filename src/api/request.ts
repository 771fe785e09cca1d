/** Requests as plain data: their own module, as endpoints.ts builds them and types.ts names their client. */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One HTTP request: the planner stores these in a plan file. */
export interface ApiRequest {
  method: HttpMethod;
  /** Path below the API origin, e.g. `/api/dsp/v1/campaigns`. */
  path: string;
  /** Query parameters in order; a name may repeat (`filter=id:1&filter=id:2`). */
  query?: Array<[string, string]>;
  body?: unknown;
}

/** `__response` is a phantom, never set: it lets `send(Endpoints.getCampaign("1"))` infer `Campaign`. */
export interface TypedRequest<T> extends ApiRequest {
  readonly __response?: T;
}

export interface Credentials {
  email: string;
  password: string;
}
