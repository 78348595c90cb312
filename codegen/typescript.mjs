// Generate the TypeScript sources derived from schema/v1, or check that they are current.
//
//   node codegen/typescript.mjs           writes packages/typescript/src/generated/
//   node codegen/typescript.mjs --check   builds the same files in memory, prints a
//                                         unified diff of whatever differs from the
//                                         files on disk and exits 1 naming `make generate`
//
// The files are the generated part of the TypeScript package (packages/typescript,
// published to npm as `toolresponse`); its hand-written sources import them. Outputs,
// all deterministic (no timestamps; the pinned tool versions come from
// package-lock.json through node_modules):
//
// * tool-response.ts: the ToolResponse, ErrorInfo, Stats and Context types and
//   the ToolStatus and ErrorCode unions, by json-schema-to-typescript from
//   schema/v1/tool-response.schema.json;
// * error-codes.ts: each code's category, default retryability, HTTP status,
//   meaning and MCP ToolFailure class and code (ERROR_CODE_INFO), and that table
//   read backwards (TOOL_FAILURE_CODES), read from the annotations of
//   schema/v1/error-code.schema.json, which json-schema-to-typescript does not emit
//   (codegen/generate.py, which `make generate` runs first, checks the ToolFailure table);
// * schema.ts: the schema the package validates with, as one document
//   (TOOL_RESPONSE_SCHEMA): the bundle that codegen/generate.py writes
//   (generated/python/toolresponse_generated/tool-response.v1.schema.json, every
//   referenced file inlined under $defs), taken as it is, so that one bundler
//   serves both languages. `make generate` runs generate.py first.
//
// Both modes also check that the package's version (packages/typescript/package.json,
// and its entry in package-lock.json) is the version in pyproject.toml.
//
// Before json-schema-to-typescript sees it, the schema is bundled and
// normalised in memory (schema/ is never changed):
//
// 1. each external $ref is resolved against the referring file's $id to the
//    schema/v1 file with that $id and inlined under $defs by its title, so no
//    reference is ever fetched and the type takes the file's title as its name;
// 2. a $defs entry typed ["object", "null"] becomes the object type, and each
//    reference to it reads "that type or null": TypeScript gets a named
//    interface ErrorInfo and `error_info?: ErrorInfo | null`, the same values;
// 3. a subschema that says nothing of its type (only annotations, as
//    context.params_input and the values of x- members) becomes `unknown`;
//    json-schema-to-typescript would otherwise make it an object.
//
// What TypeScript cannot express (error_info required when status is error,
// minimums and minimum lengths, only x- names beyond the listed members) stays
// the schema's job: the package's validate() checks it with ajv.
//
// Both modes type-check the generated files in memory with the pinned
// TypeScript compiler under its strictest options, together with every file
// of schema/v1/examples written as a ToolResponse value, and fail on any
// diagnostic.

import { readFile, readdir, writeFile, mkdir, unlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SCHEMA_DIR = path.join(ROOT, "schema", "v1");
const EXAMPLES_DIR = path.join(SCHEMA_DIR, "examples");
const PACKAGE_DIR = path.join(ROOT, "packages", "typescript");
const OUT_DIR = path.join(PACKAGE_DIR, "src", "generated");
const BUNDLE = path.join(ROOT, "generated", "python", "toolresponse_generated", "tool-response.v1.schema.json");
const PYPROJECT = path.join(ROOT, "pyproject.toml");
const LOCK_FILE = path.join(ROOT, "package-lock.json");
const ROOT_SCHEMA = "tool-response.schema.json";
const ERROR_CODE_SCHEMA = "error-code.schema.json";
const STATUS_SCHEMA = "status.schema.json";
const TOOL_FAILURE_MEMBER = "x-mcp-tool-failure";
const COMMAND = "make generate";
const SCRIPT = "codegen/typescript.mjs";
const PRETTIER_STYLE = {
  parser: "typescript",
  printWidth: 110,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  trailingComma: "all",
  endOfLine: "lf",
};
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

class UsageError extends Error {}
class SchemaError extends Error {}

function relative(file) {
  return path.relative(ROOT, file).split(path.sep).join("/");
}

async function importTools() {
  try {
    const [{ compile }, prettier, ts] = await Promise.all([
      import("json-schema-to-typescript"),
      import("prettier"),
      import("typescript"),
    ]);
    return { compile, prettier, ts: ts.default };
  } catch (error) {
    if (error?.code === "ERR_MODULE_NOT_FOUND") {
      throw new UsageError(
        "the npm development packages are not installed: run `npm ci` at the repository root (`make generate` does it)",
      );
    }
    throw error;
  }
}

async function toolVersion(name) {
  const manifest = JSON.parse(await readFile(path.join(ROOT, "node_modules", name, "package.json"), "utf8"));
  return manifest.version;
}

async function loadJson(file) {
  const text = await readFile(file, "utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SchemaError(`${relative(file)}: not valid JSON (${error.message})`);
  }
}

/** Every schema of schema/v1 (the *.schema.json files), keyed by its $id. */
async function loadSchemas() {
  const byId = new Map();
  for (const name of (await readdir(SCHEMA_DIR)).filter((n) => n.endsWith(".schema.json")).sort()) {
    const schema = await loadJson(path.join(SCHEMA_DIR, name));
    if (typeof schema.$id !== "string") throw new SchemaError(`schema/v1/${name}: no $id`);
    byId.set(schema.$id, { name, schema });
  }
  return byId;
}

function header(source) {
  return `// Generated by \`${COMMAND}\` (${SCRIPT}) from ${source}; do not edit.\n`;
}

/** The root schema with external references inlined and nullable definitions split (see the top of this file). */
function normalisedSchema(byId) {
  const rootEntry = [...byId.values()].find((entry) => entry.name === ROOT_SCHEMA);
  if (!rootEntry) throw new SchemaError(`schema/v1/${ROOT_SCHEMA} is missing`);
  const defs = {};
  const inlined = new Map();
  const pending = [];

  const inline = (ref, baseId) => {
    const target = new URL(ref, baseId).href;
    const entry = byId.get(target);
    if (!entry)
      throw new SchemaError(
        `$ref ${JSON.stringify(ref)} names ${target}, which no schema/v1 file has as $id`,
      );
    if (!inlined.has(target)) {
      const { $schema, $id, ...body } = entry.schema;
      if (typeof body.title !== "string")
        throw new SchemaError(`schema/v1/${entry.name}: no title to name its type`);
      inlined.set(target, body.title);
      pending.push([body.title, body, $id]);
    }
    return inlined.get(target);
  };

  const resolveRefs = (node, baseId) => {
    if (Array.isArray(node)) return node.map((item) => resolveRefs(item, baseId));
    if (node === null || typeof node !== "object") return node;
    const out = {};
    for (const [key, value] of Object.entries(node)) out[key] = resolveRefs(value, baseId);
    if (typeof out.$ref === "string" && !out.$ref.startsWith("#"))
      out.$ref = `#/$defs/${inline(out.$ref, baseId)}`;
    return out;
  };

  const { $schema, $id, $defs = {}, ...rootBody } = rootEntry.schema;
  const bundled = resolveRefs(rootBody, $id);
  for (const [name, body] of Object.entries($defs)) defs[name] = resolveRefs(body, $id);
  while (pending.length) {
    const [name, body, baseId] = pending.shift();
    if (JSON.stringify(body).includes('"$ref":"#')) {
      throw new SchemaError(
        `${baseId}: a referenced file with references inside itself is not supported here`,
      );
    }
    defs[name] = resolveRefs(body, baseId);
  }

  const nullable = new Set();
  for (const [name, body] of Object.entries(defs)) {
    if (Array.isArray(body.type) && body.type.includes("null") && body.type.length > 1) {
      const rest = body.type.filter((type) => type !== "null");
      defs[name] = { ...body, type: rest.length === 1 ? rest[0] : rest };
      nullable.add(name);
    }
  }

  const isAnnotationOnly = (node) => Object.keys(node).every((key) => ANNOTATIONS.has(key));
  const tsNormalise = (node) => {
    if (Array.isArray(node)) return node.map(tsNormalise);
    if (node === null || typeof node !== "object") return node;
    const out = {};
    for (const [key, value] of Object.entries(node)) out[key] = tsNormalise(value);
    if (typeof out.$ref !== "string") return out;
    const { $ref, ...siblings } = out;
    if (nullable.has($ref.slice("#/$defs/".length)))
      return { ...siblings, anyOf: [{ $ref }, { type: "null" }] };
    return Object.keys(siblings).length ? { ...siblings, allOf: [{ $ref }] } : out;
  };
  // Annotation-only subschemas sit under properties/patternProperties: mark them there.
  const markUnknown = (node) => {
    if (Array.isArray(node)) return node.map(markUnknown);
    if (node === null || typeof node !== "object") return node;
    const out = {};
    for (const [key, value] of Object.entries(node)) {
      if (["properties", "patternProperties"].includes(key)) {
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [
            name,
            isAnnotationOnly(sub) ? { ...sub, tsType: "unknown" } : markUnknown(sub),
          ]),
        );
      } else {
        out[key] = markUnknown(value);
      }
    }
    return out;
  };

  const normalisedDefs = Object.fromEntries(
    Object.entries(defs)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, body]) => [name, markUnknown(tsNormalise(body))]),
  );
  return { ...markUnknown(tsNormalise(bundled)), $defs: normalisedDefs };
}

async function toolResponseSource(tools, byId) {
  const version = await toolVersion("json-schema-to-typescript");
  const body = await tools.compile(normalisedSchema(byId), "ToolResponse", {
    bannerComment: "",
    cwd: SCHEMA_DIR,
    declareExternallyReferenced: true,
    unreachableDefinitions: true,
    additionalProperties: true,
    strictIndexSignatures: false,
    unknownAny: true,
    format: false,
    $refOptions: { resolve: { external: false, http: false, file: false } },
  });
  const lead = [
    `// Generated by \`${COMMAND}\` (${SCRIPT}, json-schema-to-typescript ${version}) from schema/v1/${ROOT_SCHEMA}; do not edit.`,
    "/**",
    " * The ToolResponse v1 types. The schema stays the judge of what these types cannot",
    " * say: error_info is required when status is error, text is then non-empty, and",
    " * numbers have their minimums. Validate received values against the schema.",
    " */",
    "",
  ].join("\n");
  return lead + body;
}

function errorCodesSource(byId) {
  const find = (name) => [...byId.values()].find((entry) => entry.name === name)?.schema;
  const codeSchema = find(ERROR_CODE_SCHEMA);
  const statusSchema = find(STATUS_SCHEMA);
  if (!codeSchema || !statusSchema)
    throw new SchemaError(`schema/v1/${ERROR_CODE_SCHEMA} or ${STATUS_SCHEMA} is missing`);
  const codes = codeSchema.enum;
  const meanings = codeSchema["x-enum-descriptions"];
  const metadata = codeSchema["x-error-codes"];
  const sameCodes =
    Array.isArray(codes) &&
    Array.isArray(meanings) &&
    meanings.length === codes.length &&
    metadata !== null &&
    typeof metadata === "object" &&
    JSON.stringify(Object.keys(metadata).sort()) === JSON.stringify([...codes].sort());
  if (!sameCodes) {
    throw new SchemaError(
      `schema/v1/${ERROR_CODE_SCHEMA}: x-enum-descriptions and x-error-codes must describe exactly the codes of enum`,
    );
  }
  const categories = [...new Set(codes.map((code) => metadata[code].category))];
  const failures = codes.map((code) => metadata[code][TOOL_FAILURE_MEMBER]);
  if (!failures.every((failure) => typeof failure?.class === "string" && typeof failure?.code === "string")) {
    throw new SchemaError(
      `schema/v1/${ERROR_CODE_SCHEMA}: every code's ${TOOL_FAILURE_MEMBER} must have a class and a code`,
    );
  }
  const failureClasses = [...new Set(failures.map((failure) => failure.class))].sort();
  const q = (value) => JSON.stringify(value);
  const lines = [
    header(`schema/v1/${ERROR_CODE_SCHEMA} and schema/v1/${STATUS_SCHEMA}`).trimEnd(),
    "/**",
    " * Each standard error code's category, default retryability, HTTP status, meaning, and the class",
    " * and code of the MCP ToolFailure member that stands for it (an open MCP proposal, SEP-3313).",
    " */",
    "",
    'import type { ErrorCode, ToolStatus } from "./tool-response.js";',
    "",
    "/** The family an error code belongs to. */",
    `export type ErrorCategory = ${categories.map(q).join(" | ")};`,
    "",
    "/** The class of an MCP ToolFailure: how a client reacts (only `reliability` is retried). */",
    `export type ToolFailureClass = ${failureClasses.map(q).join(" | ")};`,
    "",
    "/** The `class` and `code` of the MCP ToolFailure member written for an error code. */",
    "export interface McpToolFailure {",
    "  readonly class: ToolFailureClass;",
    "  /** A value the proposal recommends where one fits, else the error code's own name. */",
    "  readonly code: string;",
    "}",
    "",
    "/** What the schema says of one error code. */",
    "export interface ErrorCodeInfo {",
    "  readonly code: ErrorCode;",
    "  readonly category: ErrorCategory;",
    "  /** Whether a retry may succeed when `error_info.retryable` is absent. */",
    "  readonly retryable: boolean;",
    "  /** The HTTP status of a response with this code in the HTTP binding. */",
    "  readonly httpStatus: number;",
    "  /** The code's one-line meaning. */",
    "  readonly description: string;",
    "  /** The MCP ToolFailure class and code of an error with this code (`x-mcp-tool-failure`). */",
    "  readonly mcpToolFailure: McpToolFailure;",
    "}",
    "",
    "/** The standard error codes, in the schema's order. */",
    `export const ERROR_CODES: readonly ErrorCode[] = Object.freeze([${codes.map(q).join(", ")}]);`,
    "",
    "/** The statuses a ToolResponse can have, in the schema's order. */",
    `export const TOOL_STATUSES: readonly ToolStatus[] = Object.freeze([${statusSchema.enum.map(q).join(", ")}]);`,
    "",
    "/** Each code's metadata, keyed by code. */",
    "export const ERROR_CODE_INFO: Readonly<Record<ErrorCode, ErrorCodeInfo>> = Object.freeze({",
  ];
  codes.forEach((code, index) => {
    const entry = metadata[code];
    lines.push(
      `  ${code}: Object.freeze({`,
      `    code: ${q(code)},`,
      `    category: ${q(entry.category)},`,
      `    retryable: ${entry.retryable === true},`,
      `    httpStatus: ${Number(entry.http_status)},`,
      `    description: ${q(meanings[index])},`,
      `    mcpToolFailure: Object.freeze({ class: ${q(failures[index].class)}, code: ${q(failures[index].code)} }),`,
      "  }),",
    );
  });
  lines.push(
    "});",
    "",
    "/** The same table read backwards: the error code each ToolFailure code of the table stands for. */",
    "export const TOOL_FAILURE_CODES: Readonly<Record<string, ErrorCode>> = Object.freeze({",
    ...codes.map((code, index) => `  ${q(failures[index].code)}: ${q(code)},`),
    "});",
    "",
    "/** Whether `value` is one of the standard error codes, exactly. */",
    "export function isErrorCode(value: unknown): value is ErrorCode {",
    '  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);',
    "}",
    "",
    "/** Whether `value` is one of the statuses, exactly. */",
    "export function isToolStatus(value: unknown): value is ToolStatus {",
    '  return typeof value === "string" && (TOOL_STATUSES as readonly string[]).includes(value);',
    "}",
    "",
  );
  return lines.join("\n");
}

async function schemaSource() {
  const bundle = await loadJson(BUNDLE).catch((error) => {
    if (error?.code === "ENOENT")
      throw new SchemaError(`${relative(BUNDLE)} is missing: run \`${COMMAND}\` (codegen/generate.py writes it)`);
    throw error;
  });
  if (typeof bundle.$id !== "string") throw new SchemaError(`${relative(BUNDLE)}: no $id`);
  return [
    header(`schema/v1 (the bundle ${relative(BUNDLE)})`).trimEnd(),
    "/**",
    " * The ToolResponse v1 JSON Schema (draft 2020-12) as one document: every file of schema/v1",
    " * that the root references is inlined under $defs. Deeply frozen: it is what validate() compiles.",
    " */",
    "",
    "/** A JSON Schema document, read-only. */",
    "export interface SchemaDocument {",
    "  readonly $id: string;",
    "  readonly [member: string]: unknown;",
    "}",
    "",
    "function frozen<T>(value: T): T {",
    '  if (value !== null && typeof value === "object") {',
    "    for (const member of Object.values(value)) frozen(member);",
    "    Object.freeze(value);",
    "  }",
    "  return value;",
    "}",
    "",
    `export const TOOL_RESPONSE_SCHEMA: SchemaDocument = frozen(${JSON.stringify(bundle)});`,
    "",
  ].join("\n");
}

/** What is wrong with the package's version: it must be pyproject.toml's, in package.json and in the lock. */
async function versionProblems() {
  const pyproject = await readFile(PYPROJECT, "utf8");
  const project = /^\[project\]\n([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(pyproject)?.[1] ?? "";
  const version = /^version\s*=\s*"([^"]+)"/m.exec(project)?.[1];
  if (version === undefined) return [`pyproject.toml: no version in [project]`];
  const manifestFile = path.join(PACKAGE_DIR, "package.json");
  const manifest = await loadJson(manifestFile);
  const lock = await loadJson(LOCK_FILE);
  const locked = lock.packages?.[relative(PACKAGE_DIR)]?.version;
  const problems = [];
  if (manifest.version !== version)
    problems.push(`${relative(manifestFile)}: version ${JSON.stringify(manifest.version)}, not pyproject.toml's ${JSON.stringify(version)}`);
  if (locked !== version)
    problems.push(
      `package-lock.json: ${relative(PACKAGE_DIR)} at version ${JSON.stringify(locked)}, not ${JSON.stringify(version)} (run \`npm install\` after editing package.json)`,
    );
  return problems;
}

/** Type-check the generated sources (and the examples as ToolResponse values) in memory; the diagnostics, or none. */
async function typeCheck(ts, sources) {
  const overlay = new Map([...sources].map(([file, text]) => [path.resolve(file), text]));
  const examples = (await readdir(EXAMPLES_DIR)).filter((name) => name.endsWith(".json")).sort();
  const exampleValues = [];
  for (const name of examples)
    exampleValues.push(
      `  // schema/v1/examples/${name}\n  ${JSON.stringify(await loadJson(path.join(EXAMPLES_DIR, name)))},`,
    );
  const examplesFile = path.join(OUT_DIR, "__examples__.ts");
  overlay.set(
    examplesFile,
    [
      'import type { ToolResponse } from "./tool-response.js";',
      'import { ERROR_CODE_INFO, ERROR_CODES } from "./error-codes.js";',
      `export const examples: readonly ToolResponse[] = [\n${exampleValues.join("\n")}\n];`,
      "export const statuses: readonly number[] = ERROR_CODES.map((code) => ERROR_CODE_INFO[code].httpStatus);",
      "",
    ].join("\n"),
  );
  const options = {
    strict: true,
    noEmit: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noUnusedLocals: true,
    noPropertyAccessFromIndexSignature: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts"],
    types: [],
  };
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile: hostReadFile } = host;
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const text = overlay.get(path.resolve(fileName));
    return text === undefined
      ? getSourceFile.call(host, fileName, languageVersion, ...rest)
      : ts.createSourceFile(fileName, text, languageVersion, true);
  };
  host.fileExists = (fileName) => overlay.has(path.resolve(fileName)) || fileExists.call(host, fileName);
  host.readFile = (fileName) => overlay.get(path.resolve(fileName)) ?? hostReadFile.call(host, fileName);
  const { directoryExists } = host;
  host.directoryExists = (directory) =>
    path.resolve(directory) === OUT_DIR || (directoryExists ? directoryExists.call(host, directory) : true);
  const program = ts.createProgram([...overlay.keys()], options, host);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  return diagnostics.length
    ? ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => "\n",
      })
    : "";
}

/** A unified diff of two texts (longest common subsequence of lines, three lines of context). */
export function unifiedDiff(before, after, fromFile, toFile, context = 3) {
  const a = before === "" ? [] : before.split(/(?<=\n)/);
  const b = after === "" ? [] : after.split(/(?<=\n)/);
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push([" ", a[i++], j++]);
    else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push(["-", a[i++]]);
    else ops.push(["+", b[j++]]);
  }
  const changed = ops.map((op, index) => (op[0] === " " ? -1 : index)).filter((index) => index >= 0);
  if (!changed.length) return "";
  const hunks = [];
  for (const index of changed) {
    const last = hunks.at(-1);
    if (last && index - last[1] <= 2 * context) last[1] = index;
    else hunks.push([index, index]);
  }
  const lineText = (text) => (text.endsWith("\n") ? text : `${text}\n\\ No newline at end of file\n`);
  const out = [`--- ${fromFile}\n`, `+++ ${toFile}\n`];
  for (const [first, lastChanged] of hunks) {
    const start = Math.max(0, first - context);
    const end = Math.min(ops.length, lastChanged + context + 1);
    let oldStart = 0;
    let newStart = 0;
    for (const op of ops.slice(0, start)) {
      if (op[0] !== "+") oldStart++;
      if (op[0] !== "-") newStart++;
    }
    const slice = ops.slice(start, end);
    const oldCount = slice.filter((op) => op[0] !== "+").length;
    const newCount = slice.filter((op) => op[0] !== "-").length;
    out.push(
      `@@ -${oldStart + (oldCount ? 1 : 0)},${oldCount} +${newStart + (newCount ? 1 : 0)},${newCount} @@\n`,
    );
    for (const [sign, text] of slice) out.push(sign + lineText(text));
  }
  return out.join("");
}

async function outputs(tools) {
  const byId = await loadSchemas();
  const format = (text) => tools.prettier.format(text, PRETTIER_STYLE);
  return new Map([
    [path.join(OUT_DIR, "tool-response.ts"), await format(await toolResponseSource(tools, byId))],
    [path.join(OUT_DIR, "error-codes.ts"), await format(errorCodesSource(byId))],
    [path.join(OUT_DIR, "schema.ts"), await format(await schemaSource())],
  ]);
}

function parseArguments(argv) {
  const known = new Set(["--check"]);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(
      `usage: node ${SCRIPT} [--check]\n\nWrite packages/typescript/src/generated/ from schema/v1; --check fails with a diff if it is stale.\n`,
    );
    process.exit(0);
  }
  const unknown = argv.filter((arg) => !known.has(arg));
  if (unknown.length)
    throw new UsageError(`unknown argument ${JSON.stringify(unknown[0])} (usage: node ${SCRIPT} [--check])`);
  return { check: argv.includes("--check") };
}

async function main(argv) {
  const { check } = parseArguments(argv);
  const versions = await versionProblems();
  if (versions.length) {
    process.stderr.write(
      `${SCRIPT}: the TypeScript package's version is not the package version:\n${versions.map((p) => `  ${p}\n`).join("")}`,
    );
    return 1;
  }
  const tools = await importTools();
  const expected = await outputs(tools);
  const diagnostics = await typeCheck(tools.ts, expected);
  if (diagnostics) {
    process.stderr.write(
      `${SCRIPT}: the generated TypeScript does not type-check` +
        ` (__examples__.ts holds each schema/v1/examples file as a ToolResponse value):\n${diagnostics}`,
    );
    return 1;
  }
  const stale = [];
  const present = existsSync(OUT_DIR) ? (await readdir(OUT_DIR)).map((name) => path.join(OUT_DIR, name)) : [];
  for (const orphan of present.filter((file) => !expected.has(file)).sort()) {
    stale.push(relative(orphan));
    if (check) process.stdout.write(`${relative(orphan)}: not written by ${SCRIPT}\n`);
    else {
      await unlink(orphan);
      process.stdout.write(`removed ${relative(orphan)}\n`);
    }
  }
  if (!check) stale.length = 0;
  for (const [file, text] of expected) {
    const actual = existsSync(file) ? await readFile(file, "utf8") : "";
    if (actual === text) continue;
    const name = relative(file);
    if (check) {
      process.stdout.write(unifiedDiff(actual, text, `${name} (on disk)`, `${name} (from schema)`));
      stale.push(name);
    } else {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text, "utf8");
      process.stdout.write(`wrote ${name}\n`);
    }
  }
  if (stale.length) {
    process.stderr.write(
      `\nGenerated files are out of date with schema/: ${stale.join(", ")}.\nRun \`${COMMAND}\` and commit the result.\n`,
    );
    return 1;
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (status) => {
      process.exitCode = status;
    },
    (error) => {
      if (error instanceof UsageError) {
        process.stderr.write(`${SCRIPT}: ${error.message}\n`);
        process.exitCode = 2;
      } else if (error instanceof SchemaError) {
        process.stderr.write(`${SCRIPT}: ${error.message}\n`);
        process.exitCode = 1;
      } else {
        throw error;
      }
    },
  );
}
