/**
 * ToolResponse v1 for TypeScript: the types and the error-code metadata generated from the
 * schema, the factories, and the validator (the bundled schema with ajv, plus the I-JSON rules).
 *
 * ```ts
 * import { error, isRetryable, validateJson } from "toolresponse";
 *
 * const answer = error("TIMEOUT", "The upstream API did not answer within 30 s.");
 * isRetryable(answer); // true: TIMEOUT's default
 * validateJson('{"status": "success", "text": "ok", "text": "again"}').errors[0];
 * // { pointer: "/text", keyword: "duplicate-name", line: 1, column: 37, message: ... }
 * ```
 */

export type {
  Context,
  ErrorCode,
  ErrorInfo,
  Stats,
  ToolResponse,
  ToolStatus,
} from "./generated/tool-response.js";
export type {
  ErrorCategory,
  ErrorCodeInfo,
  McpToolFailure,
  ToolFailureClass,
} from "./generated/error-codes.js";
export {
  ERROR_CODE_INFO,
  ERROR_CODES,
  TOOL_FAILURE_CODES,
  TOOL_STATUSES,
  isErrorCode,
  isToolStatus,
} from "./generated/error-codes.js";
export { TOOL_RESPONSE_SCHEMA, type SchemaDocument } from "./generated/schema.js";
export {
  error,
  isRetryable,
  partial,
  success,
  type ErrorOptions,
  type JsonObject,
  type ResponseOptions,
} from "./response.js";
export { isToolResponse, validate, validateJson } from "./validate.js";
export { IJsonError, MAX_NESTING, parseIJson, type IJsonRule } from "./ijson.js";
export { MAX_VALUE_DEPTH } from "./jsondata.js";
export { ResponseValidationError, type ValidationResult, type Violation } from "./violation.js";
