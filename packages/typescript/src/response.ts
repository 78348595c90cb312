/**
 * The factories of a ToolResponse: `success`, `partial` and `error`, as the Python runtime's
 * `ToolResponse.success`, `.partial` and `.error` build them: the
 * same members, in the same order, for the same arguments.
 *
 * Each returns the wire object (a plain `ToolResponse`), checked by the schema when it is built:
 * its members are copied as JSON data (`toJsonData`), put together in the schema's order
 * (status, text, data, error_info, stats, context), with unset members left out (never null)
 * and an empty `data` too; then `validate` gives the verdict. An invalid response throws a
 * `ResponseValidationError` with the very violations `validate` reports for that object. So what
 * a factory returns always validates, and `JSON.stringify` of it is I-JSON.
 *
 * `error` leaves `retryable` out unless it is given: absent means the code's default, which
 * `isRetryable` reads from the schema's metadata (`ERROR_CODE_INFO`).
 */

import { ERROR_CODE_INFO, isErrorCode } from "./generated/error-codes.js";
import type {
  Context,
  ErrorCode,
  ErrorInfo,
  Stats,
  ToolResponse,
  ToolStatus,
} from "./generated/tool-response.js";
import { toJsonData } from "./jsondata.js";
import { validate } from "./validate.js";
import { ResponseValidationError } from "./violation.js";

/** A JSON object: `data`, `details`. */
export type JsonObject = { [member: string]: unknown };

/** What `success` and `partial` take beside the text and the data. */
export interface ResponseOptions {
  /** Run statistics: `time_ms` (a number >= 0) and any free members. */
  readonly stats?: Stats | null | undefined;
  /** Where the response came from: `tool_name`, `params_input`, `call_id` and free members. */
  readonly context?: Context | null | undefined;
}

/** What `error` takes beside the code and the message. */
export interface ErrorOptions extends ResponseOptions {
  /** Structured specifics: a path, an upstream reason and domain, field violations. */
  readonly details?: JsonObject | null | undefined;
  /** Whether a retry may succeed; left out (the code's default) when not given. */
  readonly retryable?: boolean | null | undefined;
  /** The earliest sensible retry, in milliseconds (an integer >= 0). */
  readonly retry_after_ms?: number | null | undefined;
  /** Structured payload, for an error that still has some. */
  readonly data?: JsonObject | null | undefined;
}

function isSet<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

function isEmptyObject(value: unknown): boolean {
  return (
    value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

function built(
  status: ToolStatus,
  text: string,
  data: JsonObject | null | undefined,
  errorInfo: Record<string, unknown> | null,
  options: ResponseOptions,
): ToolResponse {
  const wire: Record<string, unknown> = { status, text: toJsonData(text, "/text") };
  if (isSet(data)) {
    const copy = toJsonData(data, "/data");
    if (!isEmptyObject(copy)) wire["data"] = copy;
  }
  if (errorInfo !== null) wire["error_info"] = errorInfo;
  if (isSet(options.stats)) wire["stats"] = toJsonData(options.stats, "/stats");
  if (isSet(options.context)) wire["context"] = toJsonData(options.context, "/context");
  const result = validate(wire);
  if (!result.valid) throw new ResponseValidationError(result.errors);
  return wire as unknown as ToolResponse;
}

/** The task ran fully as intended. */
export function success(text: string, data?: JsonObject | null, options: ResponseOptions = {}): ToolResponse {
  return built("success", text, data, null, options);
}

/** The result is usable but discounted (truncated, sampled, rounded): `text` says how. */
export function partial(text: string, data?: JsonObject | null, options: ResponseOptions = {}): ToolResponse {
  return built("partial", text, data, null, options);
}

/**
 * No valid result: `code` and `message` say why. The response's `text` is the message;
 * `retryable` is left out unless given (absent means the code's default: see `isRetryable`).
 */
export function error(code: ErrorCode, message: string, options: ErrorOptions = {}): ToolResponse {
  const info: Record<string, unknown> = { code, message: toJsonData(message, "/error_info/message") };
  if (isSet(options.details)) info["details"] = toJsonData(options.details, "/error_info/details");
  if (isSet(options.retryable)) info["retryable"] = options.retryable;
  if (isSet(options.retry_after_ms))
    info["retry_after_ms"] = toJsonData(options.retry_after_ms, "/error_info/retry_after_ms");
  return built("error", message, options.data, info, options);
}

/**
 * Whether a retry may succeed: `error_info.retryable` when set, else the code's default from the
 * schema; false for a success or partial result.
 */
export function isRetryable(response: ToolResponse): boolean {
  const info: ErrorInfo | null | undefined = response.error_info;
  if (!isSet(info)) return false;
  if (typeof info.retryable === "boolean") return info.retryable;
  return isErrorCode(info.code) ? ERROR_CODE_INFO[info.code].retryable : false;
}

const CORE_MEMBERS = new Set(["status", "text", "data", "error_info", "stats", "context"]);
const ERROR_INFO_OPTIONAL = ["details", "retryable", "retry_after_ms"] as const;

/**
 * `response` (a valid one) in the form the factories give and the Python runtime's
 * `ToolResponse.to_dict` writes: the members in the schema's order, unset ones (null) left out,
 * an empty `data` too, extension members last. Nested values are shared, not copied.
 */
export function normalized(response: ToolResponse): ToolResponse {
  const wire: Record<string, unknown> = { status: response.status, text: response.text };
  const { data, error_info: info, stats, context } = response;
  if (isSet(data) && !isEmptyObject(data)) wire["data"] = data;
  if (isSet(info)) {
    const copy: Record<string, unknown> = { code: info.code, message: info.message };
    for (const name of ERROR_INFO_OPTIONAL) if (isSet(info[name])) copy[name] = info[name];
    wire["error_info"] = copy;
  }
  if (isSet(stats)) wire["stats"] = stats;
  if (isSet(context)) wire["context"] = context;
  for (const [name, value] of Object.entries(response)) if (!CORE_MEMBERS.has(name)) wire[name] = value;
  return wire as unknown as ToolResponse;
}
