// `npm pack` of the package gives a tarball that installs into a scratch project, where a script
// imports it and a TypeScript file type-checks against its declarations.
//
// The scratch project installs offline: its package-lock.json pins the package's dependencies
// exactly as the repository's package-lock.json does, so `npm ci --offline` takes them from the
// npm cache that the repository's own `npm ci` filled, and nothing is fetched.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { ROOT } from "./fixtures.mjs";

const PACKAGE_DIR = path.join(ROOT, "packages", "typescript");
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
const scratch = await mkdtemp(path.join(tmpdir(), "toolresponse-pack-"));
const project = path.join(scratch, "project");
after(() => rm(scratch, { recursive: true, force: true }));

function run(command, args, cwd) {
  const done = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  assert.equal(done.status, 0, `${command} ${args.join(" ")} failed:\n${done.stdout}\n${done.stderr}`);
  return done.stdout;
}

/** The entries of the repository's lock for `names` and everything they depend on, as a scratch lock has them. */
function lockedClosure(rootLock, names) {
  const packages = {};
  const pending = [...names];
  while (pending.length) {
    const key = `node_modules/${pending.shift()}`;
    if (key in packages) continue;
    const entry = rootLock.packages[key];
    assert.ok(entry, `package-lock.json has no ${key}: run npm install at the repository root`);
    const { dev, devOptional, ...locked } = entry;
    packages[key] = locked;
    pending.push(...Object.keys(entry.dependencies ?? {}));
  }
  return packages;
}

let tarball;
let manifest;

before(async () => {
  // The build is `make test`'s (or `npm run build`'s) step: packing here without the prepack
  // script keeps this file from rewriting dist/ under the other test files, which import it.
  const [packed] = JSON.parse(
    run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", scratch], PACKAGE_DIR),
  );
  tarball = path.join(scratch, packed.filename);
  manifest = JSON.parse(await readFile(path.join(PACKAGE_DIR, "package.json"), "utf8"));
  const rootLock = JSON.parse(await readFile(path.join(ROOT, "package-lock.json"), "utf8"));
  const spec = `file:${tarball}`;
  const integrity = `sha512-${createHash("sha512")
    .update(await readFile(tarball))
    .digest("base64")}`;
  const lock = {
    name: "scratch",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: "scratch", dependencies: { [manifest.name]: spec } },
      [`node_modules/${manifest.name}`]: {
        version: manifest.version,
        resolved: spec,
        integrity,
        dependencies: manifest.dependencies,
      },
      ...lockedClosure(rootLock, Object.keys(manifest.dependencies)),
    },
  };
  await mkdir(project);
  await writeFile(
    path.join(project, "package.json"),
    JSON.stringify({
      name: "scratch",
      private: true,
      type: "module",
      dependencies: { [manifest.name]: spec },
    }),
  );
  await writeFile(path.join(project, "package-lock.json"), JSON.stringify(lock));
  run("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], project);
});

test("the tarball holds the compiled modules, their declarations and the manifest, and no sources or tests", async () => {
  const listing = run("tar", ["-tzf", tarball], scratch).split("\n").filter(Boolean).sort();
  const sources = (await readdir(path.join(PACKAGE_DIR, "src"), { recursive: true }))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => name.split(path.sep).join("/"));
  const expected = [
    "package/README.md",
    "package/package.json",
    ...sources.flatMap((name) => [
      `package/dist/${name.replace(/\.ts$/, ".js")}`,
      `package/dist/${name.replace(/\.ts$/, ".d.ts")}`,
    ]),
  ].sort();
  assert.deepEqual(listing, expected);
  assert.equal(manifest.private, undefined);
  assert.deepEqual(manifest.exports["."], { types: "./dist/index.d.ts", default: "./dist/index.js" });
});

test("a script of the scratch project imports the installed package, validates with it and maps a result to MCP and back", async () => {
  const script = `
    import { ERROR_CODE_INFO, error, isRetryable, validate, validateJson } from "${manifest.name}";
    import { fromCallToolResult, toCallToolResult } from "${manifest.name}/mcp";
    const answer = error("RATE_LIMIT", "Too many requests.", { retry_after_ms: 1000 });
    console.log(JSON.stringify({
      answer,
      retryable: isRetryable(answer),
      category: ERROR_CODE_INFO.RATE_LIMIT.category,
      valid: validate(answer).valid,
      missing: validate({ status: "error", text: "Failed." }).errors.map(({ pointer, keyword }) => [pointer, keyword]),
      duplicate: validateJson('{"status": "success", "text": "a", "text": "b"}').errors.map(({ pointer, keyword }) => [pointer, keyword]),
      mcp: toCallToolResult(answer, { clock: () => 0 })._meta,
      read: fromCallToolResult({ content: [{ type: "text", text: "ENOENT: notes.txt" }], isError: true }).error_info.code,
    }));
  `;
  await writeFile(path.join(project, "main.mjs"), script);
  const output = JSON.parse(run(process.execPath, ["main.mjs"], project));
  assert.deepEqual(output, {
    answer: {
      status: "error",
      text: "Too many requests.",
      error_info: { code: "RATE_LIMIT", message: "Too many requests.", retry_after_ms: 1000 },
    },
    retryable: true,
    category: "network",
    valid: true,
    missing: [["", "required"]],
    duplicate: [["/text", "duplicate-name"]],
    // The MCP mapping runs without @modelcontextprotocol/sdk, an optional peer used for types only.
    mcp: {
      "dev.toolresponse/response": {
        status: "error",
        error_info: { code: "RATE_LIMIT", message: "Too many requests.", retry_after_ms: 1000 },
      },
      "io.modelcontextprotocol/toolFailure": {
        class: "reliability",
        code: "RATE_LIMIT",
        retryable: true,
        retryNotBefore: 1000,
        correlationId: output.mcp["io.modelcontextprotocol/toolFailure"].correlationId,
      },
    },
    read: "NOT_FOUND",
  });
  assert.match(output.mcp["io.modelcontextprotocol/toolFailure"].correlationId, /^[0-9a-f-]{36}$/);
  assert.equal(existsSync(path.join(project, "node_modules", "@modelcontextprotocol")), false);
});

test("TypeScript files of the scratch project type-check against the installed declarations, and a wrong use does not", async () => {
  await writeFile(
    path.join(project, "good.ts"),
    `import { error, validate, type ErrorCode, type ToolResponse, type Violation } from "${manifest.name}";
     const code: ErrorCode = "TIMEOUT";
     const answer: ToolResponse = error(code, "Slow.", { retryable: true });
     const problems: readonly Violation[] = validate(answer).errors;
     export const first: string | undefined = problems[0]?.pointer;\n`,
  );
  await writeFile(
    path.join(project, "bad.ts"),
    `import { error } from "${manifest.name}";\nexport const answer = error("NOT_A_CODE", "Slow.");\n`,
  );
  // One program for both files; skipLibCheck leaves out checking the standard library's
  // declarations (seconds), not the use of the package's.
  const compilerOptions = {
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    types: [],
  };
  await writeFile(
    path.join(project, "tsconfig.json"),
    JSON.stringify({ compilerOptions, files: ["good.ts", "bad.ts"] }),
  );
  const checked = spawnSync(process.execPath, [TSC, "-p", "tsconfig.json"], {
    cwd: project,
    encoding: "utf8",
  });
  assert.equal(checked.status, 2, checked.stdout + checked.stderr);
  assert.deepEqual(checked.stdout.trim().split("\n"), [
    `bad.ts(2,29): error TS2345: Argument of type '"NOT_A_CODE"' is not assignable to parameter of type 'ErrorCode'.`,
  ]);
});
