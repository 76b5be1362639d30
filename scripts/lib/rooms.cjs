/**
 * The repository's rooms (docs/design.md "Rooms"), each a top-level folder of hand-written code: the one list every
 * other list of them derives from. `.dependency-cruiser.cjs` (the import rules), `scripts/lint.sh` (the folders
 * dependency-cruiser reads), `scripts/docs/homes.ts` (whose `@home` docstrings are read) and the repository guards in
 * `tests/repo/` import it; `tsconfig.json`'s and `tsconfig.check.json`'s `include` (JSON, which cannot import) are
 * held equal to it by `tests/repo/rooms.test.ts`. Adding a room is one line here (and the two `include`s that test
 * names). CommonJS, so that dependency-cruiser's configuration can `require` it.
 */

/** The rooms of hand-written TypeScript that ships (the npm package, the release executable), lowest layer first. */
const SHIPPED_ROOMS = [
  "bin",
  "kernel",
  "rpc",
  "program",
  "auth",
  "provider",
  "policy",
  "cli",
  "emulator",
  "emulator-client",
  "receiver",
];

/** The rooms of hand-written TypeScript that never ships: the tests, the benchmark, the scripts and the examples. */
const DEVELOPMENT_ROOMS = ["tests", "bench", "scripts", "examples"];

module.exports = { SHIPPED_ROOMS, DEVELOPMENT_ROOMS };
