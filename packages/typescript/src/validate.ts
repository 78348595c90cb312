/**
 * Validate a ToolResponse v1: a decoded value (`validate`) or JSON text (`validateJson`).
 *
 * The schema is the bundled one (`TOOL_RESPONSE_SCHEMA`), compiled once, on first use, by ajv
 * (draft 2020-12) in strict mode, with the schema's annotation keywords declared. Each
 * violation has the JSON pointer of the failing value and the keyword that fails there, as the
 * shared conformance fixtures name them; `validateJson` first applies the I-JSON rules to the
 * text (see `ijson.ts`) and gives each violation its line and column.
 */

import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";

import { TOOL_RESPONSE_SCHEMA, type SchemaDocument } from "./generated/schema.js";
import type { ToolResponse } from "./generated/tool-response.js";
import { IJsonError, ijsonError, jsonText, position, visit } from "./ijson.js";
import {
  VALID,
  byRelevance,
  invalid,
  jsonPointer,
  pointerTokens,
  type ValidationResult,
  type Violation,
} from "./violation.js";

// Strict (unknown keywords, ignored keywords, NaN and Infinity are errors), except two style
// rules: the schema narrows members inside then/else without restating their type or the
// properties there (strictTypes, strictRequired), which is valid draft 2020-12 and exactly what
// it means. allErrors finds every violation; verbose gives each error its schema and data.
const AJV_OPTIONS = {
  strict: true,
  strictTypes: false,
  strictRequired: false,
  allErrors: true,
  verbose: true,
  // The schema's own annotations, declared so that strict mode knows them.
  keywords: [
    { keyword: "x-enum-descriptions", schemaType: "array" },
    { keyword: "x-error-codes", schemaType: "object" },
  ],
} as const;

let engine: Ajv2020 | undefined;
const compiled = new Map<SchemaDocument, ValidateFunction>();

/** The validator of `schema` (a document of this package: the ToolResponse schema by default), compiled once. */
function schemaValidator(schema: SchemaDocument = TOOL_RESPONSE_SCHEMA): ValidateFunction {
  let check = compiled.get(schema);
  if (check === undefined) {
    engine ??= new Ajv2020({ ...AJV_OPTIONS, keywords: [...AJV_OPTIONS.keywords] });
    check = engine.compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** `whole` ("the response") for "", else the member's dotted path ("error_info.message"). */
function label(pointer: string, whole: string): string {
  return pointer === "" ? whole : pointerTokens(pointer).join(".");
}

function described(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return `a value of type ${typeof value}`;
}

const ARTICLES: Readonly<Record<string, string>> = {
  object: "an object",
  array: "an array",
  integer: "an integer",
  null: "null",
};

function typeName(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).map(String);
  return names.map((name) => ARTICLES[name] ?? `a ${name}`).join(" or ");
}

/** The members an object schema names, for the message about an unknown member. */
function knownMembers(schema: unknown): string {
  if (schema === null || typeof schema !== "object") return "";
  const { properties, patternProperties } = schema as { properties?: object; patternProperties?: object };
  const names = Object.keys(properties ?? {});
  const extensions = Object.keys(patternProperties ?? {}).includes("^x-")
    ? ', or names beginning with "x-"'
    : "";
  return names.length ? `; the members are ${names.join(", ")}${extensions}` : "";
}

function message(error: ErrorObject, pointer: string, whole: string): string {
  const params = error.params as Record<string, unknown>;
  const where = label(pointer, whole);
  switch (error.keyword) {
    case "required": {
      const when = error.schemaPath.startsWith("#/then/") ? ', required when status is "error"' : "";
      return `missing member ${JSON.stringify(params["missingProperty"])}${when}`;
    }
    case "additionalProperties":
      return `unknown member ${JSON.stringify(params["additionalProperty"])}${knownMembers(error.parentSchema)}`;
    case "type":
      return `${where} must be ${typeName(params["type"])}, not ${described(error.data)}`;
    case "enum": {
      const allowed = (params["allowedValues"] as unknown[]).map(String).join(", ");
      return `${described(error.data)} is not one of ${allowed}`;
    }
    case "minLength":
      return params["limit"] === 1
        ? `${where} must not be empty${error.schemaPath.startsWith("#/then/") ? ' when status is "error"' : ""}`
        : `${where} must be at least ${String(params["limit"])} characters long`;
    case "minimum":
      return `${where} must be at least ${String(params["limit"])}, not ${described(error.data)}`;
    default:
      return `${where} ${error.message ?? `fails ${error.keyword}`}`;
  }
}

/** A violation, and the place of a text to show for it: the value, or an unknown member's name. */
interface Explained {
  readonly violation: Violation;
  readonly target: readonly (string | number)[];
  readonly name: boolean;
}

/** ajv's errors as violations, most relevant first: the if keyword's own error (its then or else
 * failed, and says why) left out, and each repeated violation once. */
function explained(errors: readonly ErrorObject[], whole: string): Explained[] {
  const seen = new Set<string>();
  const out: Explained[] = [];
  for (const error of errors) {
    if (error.keyword === "if") continue;
    const pointer = error.instancePath;
    const text = message(error, pointer, whole);
    const key = `${pointer}\u0000${error.keyword}\u0000${text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const violation: Violation = { pointer, keyword: error.keyword, message: text };
    const member =
      error.keyword === "additionalProperties"
        ? (error.params as { additionalProperty?: unknown }).additionalProperty
        : undefined;
    const target = pointerTokens(pointer);
    out.push(
      typeof member === "string"
        ? { violation, target: [...target, member], name: true }
        : { violation, target, name: false },
    );
  }
  return byRelevance(out, (entry) => entry.violation);
}

function explain(value: unknown, schema?: SchemaDocument, whole = "the response"): Explained[] | null {
  const check = schemaValidator(schema);
  return check(value) ? null : explained(check.errors ?? [], whole);
}

/**
 * The violations of `value` against `schema`, one of the package's own JSON Schema documents
 * (the MCP shapes of `generated/interop.ts`), most relevant first; none when it is valid. `whole`
 * names the value itself in a message ("the record").
 */
export function violationsOf(value: unknown, schema: SchemaDocument, whole: string): Violation[] {
  return (explain(value, schema, whole) ?? []).map((entry) => entry.violation);
}

/**
 * Check a decoded JSON value against the ToolResponse v1 schema. The members the schema leaves
 * free (`data`, `context.params_input`, `x-` extensions) are not looked into.
 */
export function validate(value: unknown): ValidationResult {
  const found = explain(value);
  return found === null ? VALID : invalid(found.map((entry) => entry.violation));
}

/** Whether `value` is a valid ToolResponse v1 (a type guard). */
export function isToolResponse(value: unknown): value is ToolResponse {
  return schemaValidator()(value);
}

function keyOf(name: boolean, path: readonly (string | number)[]): string {
  return `${name ? "name" : "value"}${jsonPointer(path)}`;
}

/** The violations, each with the line and column where its place starts in `text`, found in one scan. */
function located(text: string, found: readonly Explained[]): Violation[] {
  const offsets = new Map<string, number | undefined>(
    found.map((entry) => [keyOf(entry.name, entry.target), undefined]),
  );
  let remaining = offsets.size;
  const mark = (name: boolean, path: readonly (string | number)[], offset: number): boolean => {
    const key = keyOf(name, path);
    if (offsets.has(key) && offsets.get(key) === undefined) {
      offsets.set(key, offset);
      remaining -= 1;
    }
    return remaining === 0;
  };
  visit(text, {
    value: (path, offset) => mark(false, path, offset),
    name: (path, offset) => mark(true, path, offset),
  });
  return found.map(({ violation, target, name }) => {
    const offset = offsets.get(keyOf(name, target));
    return offset === undefined ? violation : { ...violation, ...position(text, offset) };
  });
}

/**
 * Check JSON text: the I-JSON rules (UTF-8, no lone surrogate or noncharacter, unique member
 * names at any depth, no NaN or Infinity), then the schema. `input` is the text, or its UTF-8
 * bytes. Every violation carries its line and column; a text that breaks an I-JSON rule gets one
 * violation, whose keyword is the rule.
 */
export function validateJson(input: string | Uint8Array): ValidationResult {
  let text: string;
  try {
    text = jsonText(input);
  } catch (error) {
    if (error instanceof IJsonError) return invalid([textViolation(error)]);
    throw error;
  }
  const breach = ijsonError(text);
  if (breach !== null) return invalid([textViolation(breach)]);
  const found = explain(JSON.parse(text));
  return found === null ? VALID : invalid(located(text, found));
}

function textViolation(error: IJsonError): Violation {
  return {
    pointer: error.pointer ?? "",
    keyword: error.rule,
    message: error.detail,
    line: error.line,
    column: error.column,
  };
}
