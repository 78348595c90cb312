/**
 * The MCP binding of ToolResponse v1 (docs/mcp-binding.md): a response as an MCP
 * `CallToolResult` (`toCallToolResult`, what a server sends) and any server's `CallToolResult`
 * as a response (`fromCallToolResult`, what a client reads), typed against the official
 * `@modelcontextprotocol/sdk`. It is the Python runtime's mapping (`toolresponse.interop`,
 * `to_mcp` and `from_mcp`) member for member, and both run the shared cases of
 * tests/conformance/v1/mcp/:
 *
 * - `content` is one text block: the response's text; a partial result's begins with
 *   `PARTIAL_MARKER`; an error's is its model text, `ERROR <CODE>: <message>`;
 * - `structuredContent` is `data` for a success or a partial result (`{}` when empty), never sent
 *   for an error; `isError` is true exactly for an error;
 * - `_meta[MCP_META_KEY]` is the rest of the response (an error's data included), and an error
 *   also has `_meta[TOOL_FAILURE_KEY]`, the ToolFailure member of the open MCP proposal SEP-3313:
 *   the class and code of the error code's row of the schema's table (`x-mcp-tool-failure`),
 *   class `reliability` whenever the response is retryable, `retryable` for that class,
 *   `retryNotBefore` (now + `retry_after_ms`) for a retryable one, `correlationId`
 *   (`context.call_id`, else a new UUID);
 * - a result without our member (a third-party server): success, partial by the marker, or for
 *   `isError` an error coded from a well-formed ToolFailure member (the table backwards, a code's
 *   name, its words, its class), else from its text as every dialect reads error text
 *   (`textError`: a stated code, else the inference table, else EXECUTION_ERROR).
 *
 * Time is a parameter: `clock` gives the milliseconds since the Unix epoch (`Date.now`).
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { ERROR_CODE_INFO, TOOL_FAILURE_CODES, isErrorCode } from "./generated/error-codes.js";
import { MCP_RESULT_SHAPE, TOOL_FAILURE_SHAPE } from "./generated/interop.js";
import type { ErrorCode, ToolResponse } from "./generated/tool-response.js";
import { normalized } from "./response.js";
import { codeSource, inferCode, modelText, statedText, stripped, textError } from "./text.js";
import { validate, violationsOf } from "./validate.js";
import { ResponseValidationError, escapePointerToken, type Violation } from "./violation.js";

/** The `_meta` key of the whole response: the reverse DNS of the schema's `$id` host, then `/response`. */
export const MCP_META_KEY = "dev.toolresponse/response";

/** The `_meta` key of the ToolFailure member of an error result (SEP-3313, not yet part of MCP). */
export const TOOL_FAILURE_KEY = "io.modelcontextprotocol/toolFailure";

/** How the text block of a partial result begins, for clients that do not read `_meta`. */
export const PARTIAL_MARKER = "[partial result] ";

/** The `data` member that holds a `structuredContent` that is not a JSON object. */
export const STRUCTURED_MEMBER = "result";

/** The `data` member that keeps the blocks that are not text, each exactly as the server sent it. */
export const CONTENT_MEMBER = "mcp_content";

/** The latest `retryNotBefore`: an exact integer in every JSON reader. */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;
const SHOWN_VIOLATIONS = 5;

export { MCP_RESULT_SHAPE, TOOL_FAILURE_SHAPE };
const DIALECT = "mcp";
const RELIABILITY = "reliability";
const META_POINTER = `/_meta/${escapePointerToken(MCP_META_KEY)}`;
const FAILURE_POINTER = `/_meta/${escapePointerToken(TOOL_FAILURE_KEY)}`;

/** The code of a ToolFailure whose code is none of ours, by its class. */
const BY_CLASS: Readonly<Record<string, ErrorCode>> = Object.freeze({
  capability: "EXECUTION_ERROR",
  reliability: "EXECUTION_ERROR", // retryable as the failure says
  governance: "PERMISSION_DENIED", // the code a registry's policies refuse with
});

/** What the mapping takes beside the response or the result. */
export interface McpOptions {
  /** The milliseconds since the Unix epoch, for `retryNotBefore` (default `Date.now`). */
  readonly clock?: () => number;
}

/**
 * A record that is not a valid `CallToolResult`, or whose carried response is not a valid
 * ToolResponse (the Python runtime's `DialectError("mcp", ...)`): `errors` lists the violations,
 * each at its JSON pointer into the record.
 */
export class DialectError extends Error {
  readonly dialect: string;
  readonly errors: readonly Violation[];

  constructor(dialect: string, errors: readonly Violation[]) {
    const shown = errors
      .slice(0, 3)
      .map((violation) => `at ${violation.pointer || '""'} [${violation.keyword}]: ${violation.message}`)
      .join("; ");
    super(`not a valid ${dialect} record: ${shown}`);
    this.name = "DialectError";
    this.dialect = dialect;
    this.errors = Object.freeze([...errors]);
  }
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function nowMs(clock: () => number): number {
  return Math.round(clock());
}

function newCorrelationId(): string {
  // Node.js 20 and later (and every browser) have the Web Crypto global.
  return (globalThis as unknown as { crypto: { randomUUID(): string } }).crypto.randomUUID();
}

// -- ToolResponse -> CallToolResult -----------------------------------------------------------

/**
 * The `CallToolResult` that carries `response` (a valid ToolResponse, else a
 * `ResponseValidationError`); `fromCallToolResult` gives it back.
 */
export function toCallToolResult(response: ToolResponse, options: McpOptions = {}): CallToolResult {
  const verdict = validate(response);
  if (!verdict.valid) throw new ResponseValidationError(verdict.errors);
  const wire = normalized(response);
  const isError = wire.status === "error";
  const meta: Json = {};
  for (const [name, value] of Object.entries(wire)) {
    if (name !== "text" && (isError || name !== "data")) meta[name] = value;
  }
  let text = wire.text;
  if (wire.status === "partial") text = PARTIAL_MARKER + text;
  else if (isError) text = modelText(wire); // a client that reads only the text still reads the code
  const result: Json = { content: [{ type: "text", text }] };
  if (!isError) result["structuredContent"] = wire.data ?? {};
  result["isError"] = isError;
  const resultMeta: Json = { [MCP_META_KEY]: meta };
  if (isError) resultMeta[TOOL_FAILURE_KEY] = toolFailure(wire, options.clock ?? Date.now);
  result["_meta"] = resultMeta;
  return result as CallToolResult;
}

/** The ToolFailure member of an error response (see the module's comment). */
function toolFailure(response: ToolResponse, clock: () => number): Json {
  const info = response.error_info!;
  const entry = ERROR_CODE_INFO[info.code].mcpToolFailure;
  const retryable =
    typeof info.retryable === "boolean" ? info.retryable : ERROR_CODE_INFO[info.code].retryable;
  const kind = retryable ? RELIABILITY : entry.class;
  const failure: Json = { class: kind, code: entry.code };
  if (kind === RELIABILITY) {
    failure["retryable"] = retryable;
    if (retryable && typeof info.retry_after_ms === "number")
      failure["retryNotBefore"] = Math.min(nowMs(clock) + info.retry_after_ms, SAFE_INTEGER);
  }
  const callId = response.context?.call_id;
  failure["correlationId"] = typeof callId === "string" && callId !== "" ? callId : newCorrelationId();
  return failure;
}

// -- CallToolResult -> ToolResponse -----------------------------------------------------------

/**
 * The ToolResponse that `result` carries: a `CallToolResult` as the SDK's client returns it, or
 * as decoded JSON. Throws `DialectError` for a record that is not a valid `CallToolResult`
 * (`MCP_RESULT_SHAPE`), whose carried response is not a valid ToolResponse, or whose carried
 * status contradicts `isError`.
 */
export function fromCallToolResult(
  result: CallToolResult | { readonly [member: string]: unknown },
  options: McpOptions = {},
): ToolResponse {
  const shapeErrors = violationsOf(result, MCP_RESULT_SHAPE, "the CallToolResult");
  if (shapeErrors.length) throw new DialectError(DIALECT, shapeErrors);
  const wire = wireFrom(result as Json, options.clock ?? Date.now);
  const verdict = validate(wire);
  if (!verdict.valid) {
    throw new DialectError(
      DIALECT,
      verdict.errors.map((violation) => ({ ...violation, pointer: relocated(violation.pointer) })),
    );
  }
  return normalized(wire as unknown as ToolResponse);
}

/** A pointer into the rebuilt response, as a pointer into the record. */
function relocated(pointer: string): string {
  if (pointer === "/text" || pointer.startsWith("/text/")) return "/content/0/text";
  if (pointer === "/data" || pointer.startsWith("/data/")) return `/structuredContent${pointer.slice(5)}`;
  return META_POINTER + pointer;
}

function wireFrom(record: Json, clock: () => number): Json {
  const texts: string[] = [];
  const others: Json[] = [];
  for (const block of record["content"] as Json[]) {
    if (block["type"] === "text") texts.push(block["text"] as string);
    else others.push(block);
  }
  const data = dataOf(record["structuredContent"], others);
  const meta = isObject(record["_meta"]) ? record["_meta"] : undefined;
  const carried = meta?.[MCP_META_KEY];
  const isError = record["isError"] === true;
  if (carried !== undefined && carried !== null) {
    const wire = carriedWire(carried, texts, data);
    if ((wire["status"] === "error") !== isError) {
      const flag = `isError is ${String(isError)}`;
      const message =
        `mcp record: ${flag}, but the response in _meta[${JSON.stringify(MCP_META_KEY)}] has status` +
        ` ${JSON.stringify(wire["status"])}: a record's isError says error exactly for status error,` +
        " and the record's own flag is not overruled";
      throw new DialectError(DIALECT, [{ pointer: "/isError", keyword: "const", message }]);
    }
    return wire;
  }
  const text = texts.join("\n");
  if (isError) return errorWire(text, data, meta, clock);
  if (text.startsWith(PARTIAL_MARKER))
    return { status: "partial", text: text.slice(PARTIAL_MARKER.length), data };
  return { status: "success", text, data };
}

/** `data` from `structuredContent` and the blocks that are not text. */
function dataOf(structured: unknown, others: Json[]): Json {
  let data: Json;
  if (structured === undefined || structured === null) data = {};
  else if (isObject(structured) && !(CONTENT_MEMBER in structured)) data = { ...structured };
  else data = { [STRUCTURED_MEMBER]: structured };
  if (others.length) data[CONTENT_MEMBER] = others;
  return data;
}

/** The response a ToolResponse server sent: its `_meta` member with text and data put back. */
function carriedWire(carried: unknown, texts: string[], data: Json): Json {
  if (!isObject(carried)) {
    const kind = Array.isArray(carried) ? "an array" : typeof carried;
    const message = `${MCP_META_KEY} holds ${kind}, not a ToolResponse object`;
    throw new DialectError(DIALECT, [{ pointer: META_POINTER, keyword: "type", message }]);
  }
  const wire: Json = { ...carried };
  let text = texts[0] ?? "";
  const info = wire["error_info"];
  if (text.startsWith(PARTIAL_MARKER) && wire["status"] === "partial")
    text = text.slice(PARTIAL_MARKER.length);
  else if (isObject(info) && typeof info["code"] === "string" && typeof info["message"] === "string")
    text = statedText(text, info["code"], info["message"]);
  wire["text"] = text;
  if (Object.keys(data).length) {
    const own = wire["data"];
    wire["data"] = isObject(own) ? { ...data, ...own } : data;
  }
  return wire;
}

/**
 * Status error for a third-party `isError` result: coded from its ToolFailure member when that
 * is well-formed, else from the text; the member, read or not, is kept in `details.tool_failure`.
 */
function errorWire(text: string, data: Json, meta: Json | undefined, clock: () => number): Json {
  const read = textError(text);
  const details: Json = { source: "mcp" };
  const info: Json = { message: read.message, details };
  const failure = meta?.[TOOL_FAILURE_KEY];
  const ignored = failure === undefined ? null : ignoredBecause(failure);
  if (failure !== undefined) details["tool_failure"] = failure;
  let code: ErrorCode;
  if (isObject(failure) && ignored === null) {
    const found = failureCode(failure);
    code = found.code;
    Object.assign(details, found.source);
    // The proposal lets a client retry only a reliability failure that says it is retryable.
    const retryable = failure["class"] === RELIABILITY && failure["retryable"] === true;
    if (retryable !== ERROR_CODE_INFO[code].retryable) info["retryable"] = retryable;
    const notBefore = failure["retryNotBefore"];
    if (retryable && typeof notBefore === "number")
      info["retry_after_ms"] = Math.max(0, Math.ceil(notBefore - nowMs(clock)));
  } else {
    code = read.code;
    if (ignored !== null) details["tool_failure_ignored"] = ignored;
    Object.assign(details, codeSource(read));
  }
  const wire: Json = { status: "error", text: read.text, error_info: { code, ...info } };
  if (Object.keys(data).length) wire["data"] = data;
  return wire;
}

/**
 * The code a well-formed ToolFailure stands for, and what `details` says of where it came from:
 * its `code` in the schema's table read backwards, else its `code` as one of ours (any case,
 * `-` for `_`), else what the words of its `code` signal, else its class's.
 */
function failureCode(failure: Json): { code: ErrorCode; source: Json } {
  const name = failure["code"] as string;
  const ours = stripped(name).toUpperCase().replaceAll("-", "_");
  const known = TOOL_FAILURE_CODES[name] ?? (isErrorCode(ours) ? ours : undefined);
  if (known !== undefined) return { code: known, source: { code_from: "tool_failure.code" } };
  const inferred = inferCode(name.replaceAll("_", " "));
  if (inferred !== null)
    return {
      code: inferred.code,
      source: { code_from: "tool_failure.code", inferred: true, signal: inferred.signal },
    };
  return { code: BY_CLASS[failure["class"] as string]!, source: { code_from: "tool_failure.class" } };
}

/** Why the ToolFailure member is not read (its first violations, at pointers into the record); null when well-formed. */
function ignoredBecause(failure: unknown): Json[] | null {
  const found = violationsOf(failure, TOOL_FAILURE_SHAPE, "the ToolFailure member");
  if (!found.length) return null;
  return found.slice(0, SHOWN_VIOLATIONS).map((violation) => ({
    pointer: FAILURE_POINTER + violation.pointer,
    keyword: violation.keyword,
    message: violation.message,
  }));
}
