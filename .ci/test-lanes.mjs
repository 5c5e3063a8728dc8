// Runs every test binary of one `cargo test --no-run` build in two lanes side by side: the
// end-to-end binary (windows under Xvfb, which wait on the app far more than they compute) in
// one, every other binary one after another in the other. cargo runs the binaries one at a time,
// so the 95 s of the engine's integration tests used to wait for the 300-odd seconds of windows.
//
// Usage: node .ci/test-lanes.mjs [--then "COMMAND"]... ARTIFACTS.json [TEST ARGS...]
// ARTIFACTS.json is the output of `cargo test --no-run --message-format=json-render-diagnostics`.
// Every executable with the test profile in it is run (none can be forgotten by a list kept
// here), from its package's folder with cargo's variables for it, as `cargo test` does. The
// window lane's output is held until the other lane ends, then follows live, so the log reads
// one binary after another. Exits 1 when any binary failed (all are run, as --no-fail-fast).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, relative } from "node:path";

/** The package whose test binary drives windows: it gets a lane of its own. */
const WINDOW_PACKAGE = "tollgate-e2e";

// `--then "<shell command>"` (before ARTIFACTS.json) runs a command in the second lane after its
// binaries, as one more of them (the UI's checks: the window lane is the longer by minutes).
const argv = process.argv.slice(2);
const then = [];
while (argv[0] === "--then" && argv.length > 1) {
  then.push(argv[1]);
  argv.splice(0, 2);
}
const [artifactsPath, ...testArgs] = argv;
if (!artifactsPath) {
  console.error('usage: node .ci/test-lanes.mjs [--then "COMMAND"]... ARTIFACTS.json [TEST ARGS...]');
  process.exit(2);
}

const binaries = [];
for (const line of readFileSync(artifactsPath, "utf8").split("\n")) {
  if (!line.startsWith("{")) continue;
  const message = JSON.parse(line);
  if (message.reason !== "compiler-artifact" || !message.profile?.test || !message.executable) continue;
  // Benches are built (and linted) with the tests, and measured by their own command.
  if (message.target.kind.includes("bench")) continue;
  const manifestDir = dirname(message.manifest_path);
  const [pkgName, pkgVersion] = packageOf(message.package_id);
  binaries.push({
    executable: message.executable,
    source: relative(manifestDir, message.target.src_path),
    kind: message.target.kind.includes("test") ? "test" : "unittests",
    manifestDir,
    pkgName,
    pkgVersion,
  });
}
if (binaries.length === 0) {
  console.error(`No test binaries in ${artifactsPath}: was it written by cargo test --no-run --message-format=json?`);
  process.exit(2);
}

/** Name and version from a package id: `path+file:///…/engine#tollgate-engine@0.1.0` or `…#0.1.0`. */
function packageOf(id) {
  const fragment = id.slice(id.lastIndexOf("#") + 1);
  const at = fragment.lastIndexOf("@");
  if (at >= 0) return [fragment.slice(0, at), fragment.slice(at + 1)];
  const path = id.slice(0, id.lastIndexOf("#"));
  return [path.slice(path.lastIndexOf("/") + 1), fragment];
}

/** Runs a shell command in the repository's root; resolves to its exit code, writing through `out`. */
function runCommand(command, out) {
  out(`     Running ${command}\n`);
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk) => out(chunk));
    child.stderr.on("data", (chunk) => out(chunk));
    child.on("error", (error) => {
      out(`could not start ${command}: ${error.message}\n`);
      resolve(1);
    });
    child.on("close", (code) => resolve(code ?? 1));
  });
}

/** Runs one binary as `cargo test` would; resolves to its exit code, writing through `out`. */
function run(binary, out) {
  const heading = binary.kind === "test" ? binary.source : `unittests ${binary.source}`;
  out(`     Running ${heading} (${relative(process.cwd(), binary.executable)})\n`);
  return new Promise((resolve) => {
    const child = spawn(binary.executable, testArgs, {
      cwd: binary.manifestDir,
      env: {
        ...process.env,
        CARGO_MANIFEST_DIR: binary.manifestDir,
        CARGO_PKG_NAME: binary.pkgName,
        CARGO_PKG_VERSION: binary.pkgVersion,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (chunk) => out(chunk));
    child.stderr.on("data", (chunk) => out(chunk));
    child.on("error", (error) => {
      out(`could not start ${binary.executable}: ${error.message}\n`);
      resolve(1);
    });
    child.on("close", (code, signal) => {
      if (signal) out(`${binary.executable} ended by signal ${signal}\n`);
      resolve(code ?? 1);
    });
  });
}

/** Runs binaries one after another; resolves to the list of those that failed. */
async function lane(list, out) {
  const failed = [];
  for (const binary of list) {
    if ((await run(binary, out)) !== 0) failed.push(`${binary.pkgName} ${binary.source}`);
  }
  return failed;
}

// The window lane writes into a buffer until the other lane is done, then straight through.
let held = [];
const windowOut = (chunk) => (held ? held.push(chunk) : process.stdout.write(chunk));
const directOut = (chunk) => process.stdout.write(chunk);

const windows = lane(
  binaries.filter((b) => b.pkgName === WINDOW_PACKAGE && b.kind === "test"),
  windowOut,
);
const rest = await lane(
  binaries.filter((b) => !(b.pkgName === WINDOW_PACKAGE && b.kind === "test")),
  directOut,
);
for (const command of then) {
  if ((await runCommand(command, directOut)) !== 0) rest.push(command);
}
for (const chunk of held) process.stdout.write(chunk);
held = null;
const failed = [...rest, ...(await windows)];

if (failed.length) {
  console.error(`\nerror: ${failed.length} test binar${failed.length === 1 ? "y" : "ies"} failed:`);
  for (const name of failed) console.error(`  ${name}`);
  process.exit(1);
}
