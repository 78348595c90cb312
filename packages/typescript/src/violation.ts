/**
 * What is wrong with a value that should be a ToolResponse: one record per violation, each
 * located by an RFC 6901 JSON pointer and named by the JSON Schema keyword (or the I-JSON rule)
 * that fails there, as the Python runtime reports them.
 */

/** One way a value breaks the ToolResponse v1 schema, or one way a text breaks the I-JSON rules. */
export interface Violation {
  /** RFC 6901 JSON pointer to the offending value ("" is the whole response). */
  readonly pointer: string;
  /**
   * The JSON Schema keyword that failed (`required`, `type`, `enum`, `minLength`, `minimum`,
   * `additionalProperties`), or the I-JSON rule a text breaks (`syntax`, `encoding`,
   * `duplicate-name`, `non-finite-number`, `depth`, `binary`).
   */
  readonly keyword: string;
  /** What is wrong, for a person. */
  readonly message: string;
  /** 1-based line in the JSON text, for a violation found by `validateJson`. */
  readonly line?: number;
  /** 1-based column in the JSON text (in characters: code points), with `line`. */
  readonly column?: number;
}

/** The verdict on one value or text: valid exactly when there is no violation. */
export interface ValidationResult {
  readonly valid: boolean;
  /** Every violation found, most relevant first. */
  readonly errors: readonly Violation[];
}

/** The verdict of a valid value. */
export const VALID: ValidationResult = Object.freeze({ valid: true, errors: Object.freeze([]) });

/** The verdict of an invalid value. */
export function invalid(errors: readonly Violation[]): ValidationResult {
  return Object.freeze({ valid: false, errors: Object.freeze([...errors]) });
}

const RANK_NOT_AN_OBJECT = 0;
const RANK_UNKNOWN_MEMBER = 1;
const RANK_VALUE = 2;
const RANK_MISSING_MEMBER = 3;

/**
 * The rank of a violation in the relevance order (lower is shown first): a value that is not an
 * object at all, then unknown members (a renamed member usually explains a missing one), then
 * wrong values, then missing members.
 */
export function relevance(violation: Pick<Violation, "keyword" | "pointer">): number {
  if (violation.keyword === "additionalProperties") return RANK_UNKNOWN_MEMBER;
  if (violation.keyword === "required") return RANK_MISSING_MEMBER;
  if (violation.keyword === "type" && violation.pointer === "") return RANK_NOT_AN_OBJECT;
  return RANK_VALUE;
}

/** `items` (violations, or records that hold one) most relevant first, in their order within a rank. */
export function byRelevance<T>(
  items: readonly T[],
  violationOf: (item: T) => Pick<Violation, "keyword" | "pointer">,
): T[] {
  return items
    .map((item, index) => ({ item, index, rank: relevance(violationOf(item)) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ item }) => item);
}

/** An RFC 6901 reference token: `~` as `~0`, `/` as `~1`. */
export function escapePointerToken(token: string | number): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The JSON pointer of a path of member names and array indexes. */
export function jsonPointer(path: readonly (string | number)[]): string {
  return path.map((token) => `/${escapePointerToken(token)}`).join("");
}

/** The reference tokens of a JSON pointer, unescaped ("" gives none). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function describe(violations: readonly Violation[], limit = 3): string {
  const shown = violations
    .slice(0, limit)
    .map((violation) => `at ${violation.pointer || '""'} [${violation.keyword}]: ${violation.message}`)
    .join("; ");
  const more = violations.length - limit;
  return more > 0 ? `${shown}; and ${more} more` : shown;
}

/**
 * A value that is not a valid ToolResponse v1 (thrown by the factories). `errors` lists every
 * violation, most relevant first.
 */
export class ResponseValidationError extends Error {
  readonly errors: readonly Violation[];

  constructor(errors: readonly Violation[], what = "invalid ToolResponse") {
    if (errors.length === 0) throw new RangeError("ResponseValidationError needs at least one violation");
    const noun = errors.length === 1 ? "violation" : "violations";
    super(`${what} (${errors.length} ${noun}): ${describe(errors)}`);
    this.name = "ResponseValidationError";
    this.errors = Object.freeze([...errors]);
  }
}
