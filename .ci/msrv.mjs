// Checks the workspace's `rust-version` against every locked package: no dependency may need a
// newer Rust than the one we state. Only one toolchain can be installed where CI runs, so the
// stated minimum is checked against the packages' own `rust-version`, read from `cargo metadata`
// on standard input. Exits 1 naming the packages that need more.
import { readFileSync } from "node:fs";

const parse = (v) => v.split(".").map(Number).concat([0, 0, 0]).slice(0, 3);
const newer = (a, b) => {
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
};

const metadata = JSON.parse(readFileSync(0, "utf8"));
const own = new Set(metadata.workspace_members);
const stated = metadata.packages.find((p) => own.has(p.id) && p.rust_version)?.rust_version;
if (!stated) {
  console.error("The workspace states no rust-version (Cargo.toml, [workspace.package]).");
  process.exit(1);
}
const needMore = metadata.packages.filter((p) => p.rust_version && newer(p.rust_version, stated));
if (needMore.length) {
  console.error(`rust-version is ${stated}, but these locked packages need more:`);
  for (const p of needMore) console.error(`  ${p.name} ${p.version} needs ${p.rust_version}`);
  process.exit(1);
}
const highest = metadata.packages
  .filter((p) => p.rust_version)
  .reduce((a, p) => (newer(p.rust_version, a) ? p.rust_version : a), "0");
console.log(`rust-version ${stated} covers all ${metadata.packages.length} locked packages (the highest need: ${highest}).`);
