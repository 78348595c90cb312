// Run the ToolResponse v1 conformance fixtures with ajv (JSON Schema draft 2020-12).
//
//   node tests/conformance/node/run-fixtures.mjs          a report, closing with "N passed, M failed"
//   node tests/conformance/node/run-fixtures.mjs --json   one JSON document on stdout, per-test verdicts
//
// The schemas are every schema/v1/*.schema.json file, registered by its $id
// (nothing is fetched); tool-response.schema.json is the root. The fixtures are
// tests/conformance/v1/*.json, or the *.json files of the directory named by the
// environment variable TOOLRESPONSE_CONFORMANCE_DIR. Each fixture file is first
// checked against tests/conformance/fixture.schema.json.
//
// The HTTP fixtures of the http/ subdirectory (requests to a server and the answers
// they must get) are not run here, since they need a server: `toolresponse conformance
// URL` runs them. They are checked against the fixture schema, counted and reported
// as not run; a malformed one is a failure. So are the I-JSON text fixtures of the
// ijson/ subdirectory: their verdicts depend on the text before it is decoded
// (noncharacters, escapes), which JSON.parse and a schema validator never see.
//
// A test passes when ajv's verdict equals its "valid". For an invalid test, the
// report also says (as information, never as a failure) whether some ajv error
// has the expected instance location and keyword.
//
// Exit status: 0 when every test passes, 1 when any verdict differs or a fixture
// file is malformed, 2 when the run cannot start (missing packages, no fixtures,
// a bad argument).

import { readFile, readdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..", "..");
const SCHEMA_DIR = path.join(ROOT, "schema", "v1");
const ROOT_SCHEMA_FILE = "tool-response.schema.json";
const FIXTURE_SCHEMA = path.join(ROOT, "tests", "conformance", "fixture.schema.json");
const DEFAULT_FIXTURE_DIR = path.join(ROOT, "tests", "conformance", "v1");
const ENV_FIXTURE_DIR = "TOOLRESPONSE_CONFORMANCE_DIR";
const HTTP_SUBDIR = "http";
const TEXT_SUBDIR = "ijson";
const SCRIPT = "tests/conformance/node/run-fixtures.mjs";
// The schema's own annotation keywords, declared so that ajv's strict mode knows them.
const ANNOTATION_KEYWORDS = [
  { keyword: "x-enum-descriptions", schemaType: "array" },
  { keyword: "x-error-codes", schemaType: "object" },
];

// Strict (unknown keywords, ignored keywords and bad numbers are errors), except two style
// rules: the schemas narrow members inside if/then/else without restating their type or
// properties there (strictTypes, strictRequired), which is valid draft 2020-12 and exactly
// what they mean.
const AJV_OPTIONS = { strict: true, strictTypes: false, strictRequired: false, allErrors: true };

class SetupError extends Error {}

async function loadAjv() {
  try {
    const module = await import("ajv/dist/2020.js");
    return module.default;
  } catch (error) {
    if (error?.code === "ERR_MODULE_NOT_FOUND") {
      throw new SetupError("ajv is not installed: run `npm ci` at the repository root (`make test` does it)");
    }
    throw error;
  }
}

async function loadJson(file) {
  let text;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new SetupError(`cannot read ${file}: ${error.message}`);
  }
  return JSON.parse(text);
}

function describeAjvError(error) {
  return `${error.instancePath || "(root)"}: ${error.keyword} ${error.message ?? ""}`.trim();
}

/** The validator of a whole ToolResponse: ajv with every schema of schema/v1 registered by $id. */
async function toolResponseValidator(Ajv2020) {
  const ajv = new Ajv2020({ ...AJV_OPTIONS, keywords: ANNOTATION_KEYWORDS });
  const names = (await readdir(SCHEMA_DIR)).filter((name) => name.endsWith(".schema.json")).sort();
  let rootId;
  for (const name of names) {
    const schema = await loadJson(path.join(SCHEMA_DIR, name));
    if (typeof schema.$id !== "string") throw new SetupError(`schema/v1/${name} has no $id`);
    ajv.addSchema(schema);
    if (name === ROOT_SCHEMA_FILE) rootId = schema.$id;
  }
  if (rootId === undefined) throw new SetupError(`schema/v1/${ROOT_SCHEMA_FILE} is missing`);
  return ajv.getSchema(rootId);
}

async function fixtureFileValidator(Ajv2020) {
  const ajv = new Ajv2020(AJV_OPTIONS);
  return ajv.compile(await loadJson(FIXTURE_SCHEMA));
}

/** Every test of every fixture file, with ajv's verdict; malformed files are reported as problems. */
async function runFixtures(fixtureDir, validate, validateFixtureFile) {
  if (!existsSync(fixtureDir)) throw new SetupError(`fixture directory ${fixtureDir} does not exist`);
  const files = (await readdir(fixtureDir)).filter((name) => name.endsWith(".json")).sort();
  if (!files.length) throw new SetupError(`fixture directory ${fixtureDir} holds no .json file`);
  const results = [];
  const problems = [];
  for (const file of files) {
    let groups;
    try {
      groups = JSON.parse(await readFile(path.join(fixtureDir, file), "utf8"));
    } catch (error) {
      problems.push({ file, problem: `not valid JSON (${error.message})` });
      continue;
    }
    if (!validateFixtureFile(groups)) {
      const where = validateFixtureFile.errors.map(describeAjvError).join("; ");
      problems.push({ file, problem: `does not match fixture.schema.json: ${where}` });
      continue;
    }
    for (const group of groups) {
      for (const test of group.tests) {
        if ("request" in test) {
          problems.push({ file, problem: `${JSON.stringify(test.description)} is an HTTP test outside ${HTTP_SUBDIR}/` });
          continue;
        }
        if ("json" in test) {
          problems.push({ file, problem: `${JSON.stringify(test.description)} is a text test outside ${TEXT_SUBDIR}/` });
          continue;
        }
        const valid = validate(test.data);
        const errors = (validate.errors ?? []).map((error) => ({
          pointer: error.instancePath,
          keyword: error.keyword,
          message: error.message ?? "",
        }));
        const expectedError = test.error ?? null;
        results.push({
          id: `${file}::${test.description}`,
          file,
          group: group.description,
          description: test.description,
          expected_valid: test.valid,
          valid,
          passed: valid === test.valid,
          expected_error: expectedError,
          expected_error_found:
            expectedError === null
              ? null
              : errors.some(
                  (e) => e.pointer === expectedError.pointer && e.keyword === expectedError.keyword,
                ),
          errors,
        });
      }
    }
  }
  return { results, problems };
}

/** The HTTP fixtures of fixtureDir/http: checked against the fixture schema and counted, not run. */
async function checkHttpFixtures(fixtureDir, validateFixtureFile) {
  const { not_run, problems } = await checkUnrunFixtures(fixtureDir, HTTP_SUBDIR, "request", validateFixtureFile);
  return { http_tests_not_run: not_run, http_problems: problems };
}

/** The fixtures of fixtureDir/subdir, each test having the member `marker`: checked against the
 * fixture schema and counted, not run. */
async function checkUnrunFixtures(fixtureDir, subdir, marker, validateFixtureFile) {
  const dir = path.join(fixtureDir, subdir);
  const problems = [];
  let tests = 0;
  if (!existsSync(dir)) return { not_run: tests, problems };
  const files = (await readdir(dir)).filter((name) => name.endsWith(".json")).sort();
  for (const name of files) {
    const file = `${subdir}/${name}`;
    let groups;
    try {
      groups = JSON.parse(await readFile(path.join(dir, name), "utf8"));
    } catch (error) {
      problems.push({ file, problem: `not valid JSON (${error.message})` });
      continue;
    }
    if (!validateFixtureFile(groups)) {
      const where = validateFixtureFile.errors.map(describeAjvError).join("; ");
      problems.push({ file, problem: `does not match fixture.schema.json: ${where}` });
      continue;
    }
    for (const group of groups) {
      for (const test of group.tests) {
        if (marker in test) tests += 1;
        else problems.push({ file, problem: `${JSON.stringify(test.description)} has no ${marker} member` });
      }
    }
  }
  return { not_run: tests, problems };
}

function parseArguments(argv) {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(
      `usage: node ${SCRIPT} [--json]\n\n` +
        `Validate every conformance fixture with ajv (draft 2020-12) and compare verdicts.\n` +
        `Fixtures: tests/conformance/v1, or the directory in ${ENV_FIXTURE_DIR}.\n`,
    );
    process.exit(0);
  }
  const unknown = argv.filter((arg) => arg !== "--json");
  if (unknown.length)
    throw new SetupError(`unknown argument ${JSON.stringify(unknown[0])} (usage: node ${SCRIPT} [--json])`);
  return { json: argv.includes("--json") };
}

function report({ results, problems, http_tests_not_run, text_tests_not_run }, fixtureDir) {
  const lines = [`ajv conformance run over ${fixtureDir}`];
  for (const { file, problem } of problems) lines.push(`ERROR ${file}: ${problem}`);
  for (const result of results.filter((r) => !r.passed)) {
    const verdict = (valid) => (valid ? "valid" : "invalid");
    lines.push(
      `FAIL ${result.id}: expected ${verdict(result.expected_valid)}, ajv says ${verdict(result.valid)}`,
    );
    for (const error of result.errors)
      lines.push(`     ${error.pointer || "(root)"}: ${error.keyword} ${error.message}`);
  }
  const located = results.filter((r) => r.passed && r.expected_error_found === true).length;
  const unlocated = results.filter((r) => r.passed && r.expected_error_found === false);
  for (const result of unlocated) {
    const { pointer, keyword } = result.expected_error;
    lines.push(`info ${result.id}: no ajv error at ${JSON.stringify(pointer)} with keyword ${keyword}`);
  }
  const invalidPassed = located + unlocated.length;
  lines.push(
    `info: ${located} of ${invalidPassed} invalid tests have an ajv error at the expected location and keyword`,
  );
  lines.push(
    `info: ${http_tests_not_run} HTTP tests in ${HTTP_SUBDIR}/ are well-formed and not run here` +
      " (they need a server: toolresponse conformance URL)",
  );
  lines.push(
    `info: ${text_tests_not_run} I-JSON text tests in ${TEXT_SUBDIR}/ are well-formed and not run here` +
      " (their verdicts depend on the text before it is decoded)",
  );
  const passed = results.filter((r) => r.passed).length;
  const failed = results.length - passed + problems.length;
  lines.push(`${passed} passed, ${failed} failed`);
  return `${lines.join("\n")}\n`;
}

async function main(argv) {
  const { json } = parseArguments(argv);
  const fixtureDir = path.resolve(process.env[ENV_FIXTURE_DIR] || DEFAULT_FIXTURE_DIR);
  const Ajv2020 = await loadAjv();
  const validate = await toolResponseValidator(Ajv2020);
  const validateFixtureFile = await fixtureFileValidator(Ajv2020);
  const schemaOutcome = await runFixtures(fixtureDir, validate, validateFixtureFile);
  const { http_tests_not_run, http_problems } = await checkHttpFixtures(fixtureDir, validateFixtureFile);
  const text = await checkUnrunFixtures(fixtureDir, TEXT_SUBDIR, "json", validateFixtureFile);
  const outcome = {
    ...schemaOutcome,
    problems: [...schemaOutcome.problems, ...http_problems, ...text.problems],
    http_tests_not_run,
    text_tests_not_run: text.not_run,
  };
  const passed = outcome.results.filter((r) => r.passed).length;
  const failed = outcome.results.length - passed + outcome.problems.length;
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ fixture_dir: fixtureDir, passed, failed, ...outcome }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(report(outcome, fixtureDir));
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error) => {
    if (error instanceof SetupError) {
      process.stderr.write(`${SCRIPT}: ${error.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`${SCRIPT}: cannot run: ${error?.message ?? error}\n`);
      process.exitCode = 2;
    }
  },
);
