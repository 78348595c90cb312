/**
 * What a text alone says of a response: the one convention that every dialect without a member
 * for an error's code writes and reads (the Python runtime's `toolresponse.interop`, module
 * `_text`, is the same convention; docs/mcp-binding.md, "Errors in text", states it).
 *
 * Written (`modelText`): an error is `ERROR <CODE>: <message>`, then the response's text on the
 * next lines when it is not the message; a partial result `PARTIAL: <text>`; a success its text.
 *
 * Read back, for a record whose own flag says it is an error (`textError`): the code the text
 * states at its very start (`ERROR <CODE>:`, HelloAgents' `[<CODE>]:` or `❌ 错误 [<CODE>]:`, with
 * one of the 15 codes), else the first rule of the inference table whose pattern the text
 * contains (`inferCode`: errno names, HTTP statuses, phrases; generated from
 * schema/v1/interop/text-inference.json, the table the Python runtime reads too), else
 * EXECUTION_ERROR.
 */

import { INFERENCE_TABLE } from "./generated/interop.js";
import { isErrorCode } from "./generated/error-codes.js";
import type { ErrorCode, ToolResponse } from "./generated/tool-response.js";

/** An error's message when its record has no text at all. */
export const NO_TEXT = "The tool reported an error without saying why.";

// "ERROR NOT_FOUND: ..." (ours); "[NOT_FOUND]: ..." (HelloAgents 1.0's agent); "❌ 错误 [NOT_FOUND]: ..."
// (HelloAgents 1.0.1's model text).
const STATED = /^(?:ERROR ([A-Z_]+)|(?:❌ 错误 )?\[([A-Z_]+)\]):? ?/;

// The characters Python's str.strip() takes off (str.isspace), so that both implementations cut
// a message alike: JavaScript's trim() also takes U+FEFF, and keeps U+001C-U+001F and U+0085.
const SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const STRIPPED = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, "g");

/** `text` without the white space at its ends, as the binding counts white space. */
export function stripped(text: string): string {
  return text.replace(STRIPPED, "");
}

/** What a reader of text alone gets of `response`: its text, its status stated. */
export function modelText(response: ToolResponse): string {
  if (response.status === "partial") return `PARTIAL: ${response.text}`;
  const info = response.error_info;
  if (info !== null && info !== undefined) {
    const header = `ERROR ${info.code}: ${info.message}`;
    return response.text === info.message ? header : `${header}\n${response.text}`;
  }
  return response.text;
}

/**
 * The text of an error response coded `code` with `message`, from the `shown` text that
 * `modelText` made of it (`shown` itself when it does not begin with that error's header).
 */
export function statedText(shown: string, code: string, message: string): string {
  const header = `ERROR ${code}: ${message}`;
  if (shown === header) return message;
  return shown.startsWith(`${header}\n`) ? shown.slice(header.length + 1) : shown;
}

/** The code a third-party error text signals and the signal (a rule of the inference table), or null. */
export function inferCode(text: string): { readonly code: ErrorCode; readonly signal: string } | null {
  for (const rule of INFERENCE_TABLE) {
    if (rule.pattern.test(text)) return { code: rule.code, signal: rule.signal };
  }
  return null;
}

/** The error a text stands for. */
export interface TextError {
  readonly code: ErrorCode;
  /** The response's text: what follows a stated code, else the text itself. */
  readonly text: string;
  readonly message: string;
  /** `prefix` (the text states it), `text` (inferred from its words) or `default`. */
  readonly codeFrom: "prefix" | "text" | "default";
  /** The signal an inferred code came from. */
  readonly signal?: string;
}

/** The error `text` stands for, when the record's own flag says it is an error (see above). */
export function textError(text: string): TextError {
  const stated = STATED.exec(text);
  const name = stated === null ? undefined : (stated[1] ?? stated[2]);
  if (stated !== null && isErrorCode(name)) {
    const rest = text.slice(stated[0].length);
    const message = stripped(rest.split("\n", 1)[0] ?? "");
    return { code: name, text: message ? rest : text, message: message || text, codeFrom: "prefix" };
  }
  const message = stripped(text) || NO_TEXT;
  const body = stripped(text) ? text : message;
  const found = inferCode(text);
  if (found === null) return { code: "EXECUTION_ERROR", text: body, message, codeFrom: "default" };
  return { code: found.code, text: body, message, codeFrom: "text", signal: found.signal };
}

/**
 * What `error_info.details` says of where a text's code came from: for an inferred code
 * `{ code_from: "text", inferred: true, signal }`, else `{ code_from }`.
 */
export function codeSource(error: TextError): Record<string, unknown> {
  return error.signal === undefined
    ? { code_from: error.codeFrom }
    : { code_from: "text", inferred: true, signal: error.signal };
}
