// The shared conformance suite, run by this package: every schema test of tests/conformance/v1
// through validate(), every I-JSON text test of tests/conformance/v1/ijson through
// validateJson(), from the very files the Python tests read (TOOLRESPONSE_CONFORMANCE_DIR points
// both at another copy). A case added there runs here too.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { validate, validateJson } from "toolresponse";

import { fixtureDir, judgeText, judgeValue, loadSuite } from "./fixtures.mjs";

const directory = fixtureDir();
const suite = await loadSuite(directory);

test(`the fixture files of ${directory} are well-formed`, () => {
  assert.deepEqual(suite.problems, []);
});

describe("schema fixtures (validate)", () => {
  for (const fixture of suite.value) {
    test(fixture.id, () => assert.equal(judgeValue(validate, fixture), null));
  }
});

describe("I-JSON text fixtures (validateJson)", () => {
  for (const fixture of suite.text) {
    test(fixture.id, () => assert.equal(judgeText(validateJson, fixture), null));
  }
});

test(`${suite.http.length} HTTP-binding fixtures (http/)`, {
  skip: "they need a server of the HTTP binding (toolresponse conformance URL); this package has none",
});
