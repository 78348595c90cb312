/**
 * Strict I-JSON (RFC 7493) reading with exact positions, as the Python runtime does it.
 *
 * `parseIJson` accepts exactly the JSON texts the protocol allows on the wire and rejects every
 * other text with an `IJsonError` naming the rule it breaks, the line and column (1-based; the
 * column counts characters) and, where there is one, the JSON pointer of the member being read:
 *
 * | rule                | the text                                                            |
 * |---------------------|---------------------------------------------------------------------|
 * | `syntax`            | is not well-formed JSON (RFC 8259), an empty text included          |
 * | `encoding`          | is not UTF-8, has a byte order mark, a lone surrogate (raw or       |
 * |                     | `"\ud800"`), or a noncharacter (U+FDD0-U+FDEF, U+nFFFE, U+nFFFF;    |
 * |                     | raw or escaped)                                                     |
 * | `duplicate-name`    | repeats a member name in one object, at any depth                   |
 * | `non-finite-number` | has `NaN`, `Infinity`, `-Infinity`, or a number too large for a     |
 * |                     | double                                                              |
 * | `depth`             | nests arrays and objects deeper than `MAX_NESTING` levels           |
 * | `binary`            | is binary data (a NUL byte), not text                               |
 *
 * `JSON.parse` alone accepts lone surrogates and noncharacters and keeps the last of two equal
 * member names, so one pass of the scanner below checks the text first; `JSON.parse` then
 * builds the value. When a text breaks several rules, the one reported is the first error of
 * syntax, encoding (not UTF-8, a lone surrogate), number or depth; else the first noncharacter;
 * else the first repeated name: the Python runtime's order.
 *
 * Pointers: inside a member name, the pointer is the object's; inside a value (or just after
 * it), the value's: a noncharacter in the name of a member of `data` is at `/data`, one in the
 * text at `/text`.
 */

import { jsonPointer } from "./violation.js";

/** The I-JSON rule a text breaks: the `keyword` of its violation. */
export type IJsonRule = "syntax" | "encoding" | "duplicate-name" | "non-finite-number" | "depth" | "binary";

/** The deepest nesting of arrays and objects accepted (the Python runtime's limit too). */
export const MAX_NESTING = 1024;

/** A NUL byte within this many leading bytes marks data as binary (git's rule). */
export const BINARY_SNIFF_BYTES = 8192;

/** A text that is not I-JSON: the rule it breaks and where. */
export class IJsonError extends Error {
  readonly rule: IJsonRule;
  /** What is wrong, without the position. */
  readonly detail: string;
  /** 1-based line (lines end at "\n"). */
  readonly line: number;
  /** 1-based column: characters (code points) into the line, or bytes for bytes that are not UTF-8 text. */
  readonly column: number;
  /** Where in the text: an index into the string, or a byte offset for bytes that are not UTF-8 text. */
  readonly offset: number;
  /** The JSON pointer of the member being read there, or null (the text is not UTF-8, or too deep). */
  readonly pointer: string | null;

  constructor(
    rule: IJsonRule,
    detail: string,
    where: { line: number; column: number; offset: number; pointer: string | null },
  ) {
    super(`malformed JSON: line ${where.line}, column ${where.column}: ${detail}`);
    this.name = "IJsonError";
    this.rule = rule;
    this.detail = detail;
    this.line = where.line;
    this.column = where.column;
    this.offset = where.offset;
    this.pointer = where.pointer;
  }
}

/** The 1-based line and column (in code points) of index `offset` of `text`. */
export function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (
    let index = text.indexOf("\n");
    index !== -1 && index < offset;
    index = text.indexOf("\n", index + 1)
  ) {
    line += 1;
    lineStart = index + 1;
  }
  let column = 1;
  for (let index = lineStart; index < offset; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1)) && index + 1 < offset)
      index += 1;
    column += 1;
  }
  return { line, column };
}

function bytePosition(data: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset; index += 1) {
    if (data[index] === 0x0a) {
      line += 1;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isNoncharacter(codePoint: number): boolean {
  return (codePoint >= 0xfdd0 && codePoint <= 0xfdef) || (codePoint & 0xfffe) === 0xfffe;
}

function hex(codePoint: number): string {
  return codePoint.toString(16).toUpperCase().padStart(4, "0");
}

/** A short, quoted excerpt of `text` for a message. */
function shown(text: string, limit = 24): string {
  return JSON.stringify(text.length > limit ? `${text.slice(0, limit)}...` : text);
}

function found(text: string, offset: number): string {
  return offset >= text.length
    ? "the text ends too early"
    : `found ${shown(String.fromCodePoint(text.codePointAt(offset) ?? 0))}`;
}

/** One open array or object: the slot being read, and for an object the names seen so far. */
interface Frame {
  readonly isObject: boolean;
  slot: string | number;
  /** An object waiting for a member name (just opened, or after a comma). */
  expectingKey: boolean;
  readonly names: Set<string> | null;
}

/** Told, during a scan, where each value and each member name starts; returning true stops the scan. */
export interface ScanVisitor {
  value?(path: readonly (string | number)[], offset: number): boolean | void;
  name?(path: readonly (string | number)[], offset: number): boolean | void;
}

const enum State {
  Value,
  Key,
  After,
}

const SIMPLE_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const HEX4 = /^[0-9a-fA-F]{4}$/;

class Stop {}

/** One pass over a JSON text: the first breach of each kind, or a visit of every value. */
class Scanner {
  private index = 0;
  private readonly stack: Frame[] = [];
  private noncharacter: IJsonError | null = null;
  private duplicate: IJsonError | null = null;

  constructor(
    private readonly text: string,
    private readonly visitor: ScanVisitor | null,
  ) {}

  /** The first error of the text in the order of the module docstring, or null for I-JSON text. */
  run(): IJsonError | null {
    try {
      this.scan();
    } catch (error) {
      if (error instanceof IJsonError) return error;
      if (error instanceof Stop) return null;
      throw error;
    }
    return this.noncharacter ?? this.duplicate;
  }

  private path(): (string | number)[] {
    return this.stack.map((frame) => frame.slot);
  }

  /** The pointer of the member or item being read: in a member name, the object's. */
  private pointerHere(): string {
    const path = this.path();
    const innermost = this.stack.at(-1);
    if (innermost !== undefined && innermost.expectingKey) path.pop();
    return jsonPointer(path);
  }

  private error(
    rule: IJsonRule,
    offset: number,
    detail: string,
    pointer: string | null = this.pointerHere(),
  ): IJsonError {
    return new IJsonError(rule, detail, { ...position(this.text, offset), offset, pointer });
  }

  private syntax(offset: number, detail: string): IJsonError {
    return this.error("syntax", offset, `${detail} (${found(this.text, offset)})`);
  }

  private skipSpace(): void {
    const text = this.text;
    let index = this.index;
    for (;;) {
      const code = text.charCodeAt(index);
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) index += 1;
      else break;
    }
    this.index = index;
  }

  private scan(): void {
    const text = this.text;
    if (text.charCodeAt(0) === 0xfeff) {
      throw this.error("encoding", 0, "a byte order mark (U+FEFF) before the JSON text");
    }
    let state = State.Value;
    for (;;) {
      this.skipSpace();
      const offset = this.index;
      if (state === State.Value) {
        if (offset >= text.length) {
          if (this.stack.length === 0)
            throw this.error("syntax", offset, "no JSON value (the text is empty)");
          throw this.syntax(offset, "a value is missing");
        }
        if (this.visitor?.value?.(this.path(), offset) === true) throw new Stop();
        const char = text[offset];
        if (char === "{" || char === "[") {
          if (this.stack.length >= MAX_NESTING) {
            throw this.error(
              "depth",
              offset,
              `arrays and objects nested deeper than ${MAX_NESTING} levels`,
              null,
            );
          }
          const isObject = char === "{";
          this.stack.push({
            isObject,
            slot: isObject ? "" : 0,
            expectingKey: isObject,
            names: isObject ? new Set() : null,
          });
          this.index += 1;
          this.skipSpace();
          if (text[this.index] === (isObject ? "}" : "]")) {
            this.index += 1;
            this.stack.pop();
            state = State.After;
          } else {
            state = isObject ? State.Key : State.Value;
          }
          continue;
        }
        if (char === '"') this.string(false);
        else if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) this.number();
        else if (char === "N" && text.startsWith("NaN", offset)) throw this.nonFinite(offset, "NaN");
        else if (char === "I" && text.startsWith("Infinity", offset))
          throw this.nonFinite(offset, "Infinity");
        else if (text.startsWith("true", offset)) this.index += 4;
        else if (text.startsWith("false", offset)) this.index += 5;
        else if (text.startsWith("null", offset)) this.index += 4;
        else throw this.syntax(offset, "expected a value");
        state = State.After;
        continue;
      }
      const frame = this.stack.at(-1);
      if (state === State.Key) {
        // Only an object is ever in this state.
        const object = frame as Frame;
        if (text[offset] !== '"') throw this.syntax(offset, "expected a member name in double quotes");
        const name = this.string(true);
        if (object.names?.has(name)) {
          if (this.duplicate === null) {
            const path = [...this.path().slice(0, -1), name];
            const where = path.length === 1 ? "the top level" : jsonPointer(path.slice(0, -1));
            this.duplicate = this.error(
              "duplicate-name",
              offset,
              `the member name ${JSON.stringify(name)} occurs twice in one object (${where}); readers would disagree on its value`,
              jsonPointer(path),
            );
          }
        } else {
          object.names?.add(name);
        }
        object.slot = name;
        object.expectingKey = false;
        if (this.visitor?.name?.(this.path(), offset) === true) throw new Stop();
        this.skipSpace();
        if (text[this.index] !== ":") throw this.syntax(this.index, "expected ':' after a member name");
        this.index += 1;
        state = State.Value;
        continue;
      }
      // State.After: a value has just ended.
      if (frame === undefined) {
        if (offset < text.length) throw this.syntax(offset, "more after the JSON value");
        return;
      }
      const char = text[offset];
      const close = frame.isObject ? "}" : "]";
      if (char === ",") {
        this.index += 1;
        this.skipSpace();
        if (text[this.index] === close) throw this.syntax(offset, `a comma before '${close}'`);
        if (frame.isObject) {
          frame.expectingKey = true;
          state = State.Key;
        } else {
          frame.slot = (frame.slot as number) + 1;
          state = State.Value;
        }
      } else if (char === close) {
        this.index += 1;
        this.stack.pop();
      } else {
        throw this.syntax(offset, `expected ',' or '${close}'`);
      }
    }
  }

  private nonFinite(offset: number, word: string): IJsonError {
    return this.error(
      "non-finite-number",
      offset,
      `${word} is not a JSON number; I-JSON numbers are finite (write null or a string)`,
    );
  }

  private number(): void {
    const text = this.text;
    const start = this.index;
    let index = start;
    const digits = (): number => {
      const first = index;
      while (index < text.length && text.charCodeAt(index) >= 0x30 && text.charCodeAt(index) <= 0x39)
        index += 1;
      return index - first;
    };
    if (text[index] === "-") {
      if (text.startsWith("Infinity", index + 1)) throw this.nonFinite(start, "-Infinity");
      index += 1;
    }
    if (text[index] === "0") index += 1;
    else if (digits() === 0) throw this.syntax(index, "expected a digit");
    if (text[index] === ".") {
      index += 1;
      if (digits() === 0) throw this.syntax(index, "expected a digit after the decimal point");
    }
    if (text[index] === "e" || text[index] === "E") {
      index += 1;
      if (text[index] === "+" || text[index] === "-") index += 1;
      if (digits() === 0) throw this.syntax(index, "expected a digit in the exponent");
    }
    this.index = index;
    const token = text.slice(start, index);
    if (!Number.isFinite(Number(token))) {
      throw this.error(
        "non-finite-number",
        start,
        `the number ${shown(token)} is too large for a double; I-JSON numbers are finite`,
      );
    }
  }

  private noticeNoncharacter(offset: number, codePoint: number, written: string): void {
    if (this.noncharacter !== null) return;
    this.noncharacter = this.error(
      "encoding",
      offset,
      `the noncharacter U+${hex(codePoint)} (${written}); I-JSON text carries no noncharacters (RFC 7493 2.1)`,
    );
  }

  /** Read the string token at the index; a member name's value is decoded and returned. */
  private string(decode: boolean): string {
    const text = this.text;
    let index = this.index + 1;
    let chunkStart = index;
    let value = "";
    for (;;) {
      if (index >= text.length) throw this.syntax(index, "a string is not closed");
      const code = text.charCodeAt(index);
      if (code === 0x22) {
        if (decode) value += text.slice(chunkStart, index);
        this.index = index + 1;
        return value;
      }
      if (code === 0x5c) {
        if (decode) value += text.slice(chunkStart, index);
        const escape = text[index + 1];
        if (escape === undefined) throw this.syntax(index + 1, "a string is not closed");
        if (SIMPLE_ESCAPES.has(escape)) {
          if (decode)
            value +=
              escape === "b"
                ? "\b"
                : escape === "f"
                  ? "\f"
                  : escape === "n"
                    ? "\n"
                    : escape === "r"
                      ? "\r"
                      : escape === "t"
                        ? "\t"
                        : escape;
          index += 2;
        } else if (escape === "u") {
          const digits = text.slice(index + 2, index + 6);
          if (!HEX4.test(digits)) throw this.syntax(index, "a \\u escape needs four hexadecimal digits");
          const unit = Number.parseInt(digits, 16);
          let codePoint = unit;
          let length = 6;
          if (isHighSurrogate(unit)) {
            const low = text.slice(index + 8, index + 12);
            const lowUnit =
              text.startsWith("\\u", index + 6) && HEX4.test(low) ? Number.parseInt(low, 16) : -1;
            if (!isLowSurrogate(lowUnit)) throw this.loneSurrogate(index, `\\u${digits}`);
            codePoint = 0x10000 + ((unit - 0xd800) << 10) + (lowUnit - 0xdc00);
            length = 12;
          } else if (isLowSurrogate(unit)) {
            throw this.loneSurrogate(index, `\\u${digits}`);
          }
          if (isNoncharacter(codePoint)) {
            this.noticeNoncharacter(
              index,
              codePoint,
              `written as the escape ${text.slice(index, index + length)}`,
            );
          }
          if (decode) value += String.fromCodePoint(codePoint);
          index += length;
        } else {
          throw this.syntax(index, "an invalid escape");
        }
        chunkStart = index;
        continue;
      }
      if (code < 0x20) {
        throw this.error("syntax", index, `the control character U+${hex(code)} unescaped in a string`);
      }
      if (isHighSurrogate(code)) {
        const next = text.charCodeAt(index + 1);
        if (!isLowSurrogate(next)) throw this.rawLoneSurrogate(index, code);
        const codePoint = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        if (isNoncharacter(codePoint)) this.noticeNoncharacter(index, codePoint, "raw");
        index += 2;
        continue;
      }
      if (isLowSurrogate(code)) throw this.rawLoneSurrogate(index, code);
      if (code >= 0xfdd0 && isNoncharacter(code)) this.noticeNoncharacter(index, code, "raw");
      index += 1;
    }
  }

  private loneSurrogate(offset: number, escape: string): IJsonError {
    return this.error(
      "encoding",
      offset,
      `the escape ${escape} is a lone surrogate, not a Unicode character`,
    );
  }

  private rawLoneSurrogate(offset: number, code: number): IJsonError {
    return this.error("encoding", offset, `a lone surrogate U+${hex(code)}, not a Unicode character`);
  }
}

/**
 * The first byte of `data` where a sequence that is not UTF-8 starts (overlong forms, encoded
 * surrogates and code points above U+10FFFF included), or -1 for UTF-8 text.
 */
function firstInvalidUtf8(data: Uint8Array): number {
  const length = data.length;
  let index = 0;
  while (index < length) {
    const lead = data[index] as number;
    if (lead < 0x80) {
      index += 1;
      continue;
    }
    let needed: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) needed = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      needed = 2;
      if (lead === 0xe0) low = 0xa0;
      else if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      needed = 3;
      if (lead === 0xf0) low = 0x90;
      else if (lead === 0xf4) high = 0x8f;
    } else return index;
    for (let k = 1; k <= needed; k += 1) {
      const byte = data[index + k];
      const bounds = k === 1 ? [low, high] : [0x80, 0xbf];
      if (byte === undefined || byte < (bounds[0] as number) || byte > (bounds[1] as number)) return index;
    }
    index += needed + 1;
  }
  return -1;
}

/** The text of UTF-8 bytes already known to be valid. */
function decodeUtf8(data: Uint8Array): string {
  const chunks: string[] = [];
  let units: number[] = [];
  let index = 0;
  while (index < data.length) {
    const lead = data[index] as number;
    let codePoint: number;
    if (lead < 0x80) {
      codePoint = lead;
      index += 1;
    } else if (lead < 0xe0) {
      codePoint = ((lead & 0x1f) << 6) | ((data[index + 1] as number) & 0x3f);
      index += 2;
    } else if (lead < 0xf0) {
      codePoint =
        ((lead & 0x0f) << 12) |
        (((data[index + 1] as number) & 0x3f) << 6) |
        ((data[index + 2] as number) & 0x3f);
      index += 3;
    } else {
      codePoint =
        ((lead & 0x07) << 18) |
        (((data[index + 1] as number) & 0x3f) << 12) |
        (((data[index + 2] as number) & 0x3f) << 6) |
        ((data[index + 3] as number) & 0x3f);
      index += 4;
    }
    if (codePoint >= 0x10000) {
      codePoint -= 0x10000;
      units.push(0xd800 + (codePoint >> 10), 0xdc00 + (codePoint & 0x3ff));
    } else {
      units.push(codePoint);
    }
    if (units.length >= 8192) {
      chunks.push(String.fromCharCode(...units));
      units = [];
    }
  }
  chunks.push(String.fromCharCode(...units));
  return chunks.join("");
}

function byteError(data: Uint8Array, rule: IJsonRule, offset: number, detail: string): IJsonError {
  return new IJsonError(rule, detail, { ...bytePosition(data, offset), offset, pointer: null });
}

/** The text that `data` (UTF-8 bytes) holds, or the error that says why it is not UTF-8 JSON text. */
function textOf(data: Uint8Array): string {
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
    throw byteError(data, "encoding", 0, "a UTF-8 byte order mark before the JSON text");
  }
  const nul = data.subarray(0, BINARY_SNIFF_BYTES).indexOf(0);
  const binary = (): IJsonError =>
    byteError(data, "binary", nul, `binary data (a NUL byte at byte ${nul}), not JSON text`);
  const bad = firstInvalidUtf8(data);
  if (bad !== -1) {
    if (nul !== -1) throw binary();
    const byte = (data[bad] as number).toString(16).padStart(2, "0");
    throw byteError(data, "encoding", bad, `not UTF-8: byte 0x${byte} at byte ${bad}`);
  }
  const text = decodeUtf8(data);
  if (nul !== -1 && !/^[ \t\r\n]*[{["]/.test(text)) throw binary();
  return text;
}

/** The JSON text of `input`: a string as it is, bytes decoded as UTF-8; throws IJsonError or TypeError. */
export function jsonText(input: string | Uint8Array): string {
  if (typeof input === "string") return input;
  if (input instanceof Uint8Array) return textOf(input);
  const kind = input === null ? "null" : typeof input;
  throw new TypeError(`JSON text must be a string or a Uint8Array, not ${kind}`);
}

/** The first I-JSON error of the string `text`, or null. */
export function ijsonError(text: string): IJsonError | null {
  return new Scanner(text, null).run();
}

/**
 * Scan the JSON text `text` (known to be I-JSON), telling `visitor` where each value and each
 * member name starts, until the visitor returns true.
 */
export function visit(text: string, visitor: ScanVisitor): void {
  new Scanner(text, visitor).run();
}

/**
 * The value of the I-JSON text `input` (a string, or its UTF-8 bytes); throws `IJsonError` for
 * any other text, naming the rule, line, column and pointer, and `TypeError` for input that is
 * not text.
 */
export function parseIJson(input: string | Uint8Array): unknown {
  const text = jsonText(input);
  const error = ijsonError(text);
  if (error !== null) throw error;
  return JSON.parse(text) as unknown;
}
