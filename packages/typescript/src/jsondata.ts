/**
 * Turn the values a tool produces into JSON data (I-JSON, RFC 7493), or say exactly why not.
 *
 * A ToolResponse carries JSON only: objects with string member names, arrays, strings, finite
 * numbers, booleans and null. `toJsonData` copies such a value (so that a response owns its
 * values: changing what was passed in afterwards changes nothing), with the conversions
 * `JSON.stringify` makes: an object member whose value is `undefined` is left out, and an object
 * with a `toJSON` method (a `Date`) stands for what that method returns.
 *
 * Everything else throws a `ResponseValidationError` whose one violation names the value's JSON
 * pointer: `undefined` as an array item or a whole value, functions, symbols, bigints (send them
 * as strings), NaN and Infinity (I-JSON has neither; they are never turned into null), strings
 * with a lone surrogate or a noncharacter (keyword `type`), objects of other classes (a Map, a
 * Set, a typed array: keyword `type`), cycles (keyword `cycle`) and nesting deeper than
 * `MAX_VALUE_DEPTH` levels (keyword `maxDepth`).
 */

import { ResponseValidationError, escapePointerToken } from "./violation.js";

/** The deepest nesting of arrays and objects accepted inside one member of a response. */
export const MAX_VALUE_DEPTH = 200;

// A lone surrogate, or a noncharacter (U+FDD0-U+FDEF, U+FFFE and U+FFFF of every plane).
const NOT_UNICODE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uFDD0-\uFDEF\uFFFE\uFFFF]|[\uD83F\uD87F\uD8BF\uD8FF\uD93F\uD97F\uD9BF\uD9FF\uDA3F\uDA7F\uDABF\uDAFF\uDB3F\uDB7F\uDBBF\uDBFF][\uDFFE\uDFFF]/;

/** What keeps `text` out of a response (a lone surrogate, a noncharacter), or null. */
export function unicodeProblem(text: string): string | null {
  const found = NOT_UNICODE.exec(text);
  if (found === null) return null;
  const codePoint = found[0].codePointAt(0) as number;
  if (found[0].length === 1 && codePoint >= 0xd800 && codePoint <= 0xdfff) {
    return "has a lone surrogate, so it is not valid Unicode";
  }
  return `has the noncharacter U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}, which I-JSON text must not hold`;
}

function fail(pointer: string, message: string, keyword = "type"): ResponseValidationError {
  return new ResponseValidationError([{ pointer, keyword, message }], "not JSON");
}

function kindOf(value: unknown): string {
  if (typeof value === "object" && value !== null) {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === "string" && name !== "" ? name : "object";
  }
  return typeof value;
}

/**
 * A copy of `value` that is JSON data, or a `ResponseValidationError` thrown naming where it is
 * not (`pointer` is where `value` sits in the response).
 */
export function toJsonData(value: unknown, pointer: string, limit: number = MAX_VALUE_DEPTH): unknown {
  const open = new Set<object>();

  const convert = (item: unknown, at: string, depth: number): unknown => {
    switch (typeof item) {
      case "string": {
        const problem = unicodeProblem(item);
        if (problem !== null) throw fail(at, `the string ${problem}`);
        return item;
      }
      case "number":
        if (!Number.isFinite(item))
          throw fail(at, `the number ${String(item)} is not JSON: I-JSON has no NaN or Infinity`);
        return item;
      case "boolean":
        return item;
      case "bigint":
        throw fail(at, "a bigint is not JSON; send it as a string (or as a number, if it is a safe integer)");
      case "object":
        break;
      default:
        throw fail(at, `a value of type ${typeof item} is not JSON`);
    }
    if (item === null) return null;
    const toJSON = (item as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return convert(toJSON.call(item), at, depth);
    if (depth >= limit) throw fail(at, `the value nests more than ${limit} levels deep`, "maxDepth");
    if (open.has(item)) throw fail(at, "a cycle: this value contains itself", "cycle");
    open.add(item);
    let copy: unknown;
    if (Array.isArray(item)) {
      copy = item.map((member: unknown, index) => {
        if (member === undefined)
          throw fail(`${at}/${index}`, "undefined is not JSON (an array item must be a value)");
        return convert(member, `${at}/${index}`, depth + 1);
      });
    } else {
      const prototype = Object.getPrototypeOf(item) as unknown;
      if (prototype !== Object.prototype && prototype !== null)
        throw fail(at, `a value of type ${kindOf(item)} is not JSON`);
      const members: Record<string, unknown> = {};
      for (const [name, member] of Object.entries(item)) {
        const place = `${at}/${escapePointerToken(name)}`;
        const problem = unicodeProblem(name);
        if (problem !== null) throw fail(place, `a member name ${problem}`);
        if (member === undefined) continue;
        Object.defineProperty(members, name, {
          value: convert(member, place, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      copy = members;
    }
    open.delete(item);
    return copy;
  };

  if (value === undefined) throw fail(pointer, "undefined is not JSON");
  return convert(value, pointer, 0);
}
