/**
 * The rooms' import boundaries (docs/design.md "Rooms", "Direction of dependencies"), checked by `npm run lint`
 * (`depcruise`) over the TypeScript source before compilation, type-only imports included (`tsPreCompilationDeps`).
 * Specifiers end in `.js` (NodeNext) and name `.ts` files: read with tsconfig.check.json, they resolve to them.
 * Each rule says what a room may not import; a room not named here may import any room below it. Two more hold the
 * packages: shipped code loads no devDependency at run time, and nothing imports a package package.json does not
 * list. (The third package rule, no `dependencies` entry that no shipped module loads, is knip's: knip.jsonc.)
 */

const { builtinModules } = require("node:module");

/** The rooms of hand-written code that ships, and those that never do (scripts/lib/rooms.cjs, their one list). */
const { SHIPPED_ROOMS: ROOMS, DEVELOPMENT_ROOMS } = require("./scripts/lib/rooms.cjs");

/** A `to.path` matching the files of the top-level folders `rooms` (`emulator/` does not match `emulator-client/`). */
const anyOf = (...rooms) => `^(${rooms.join("|")})/`;

/** The rooms other than `allowed`, plus the development rooms (tests, bench, scripts, examples: no shipped room imports them). */
const allBut = (...allowed) => anyOf(...ROOMS.filter((room) => !allowed.includes(room)), ...DEVELOPMENT_ROOMS);

/**
 * One rule: imports from `from` to `to` are errors.
 *
 * @param {string} name the rule's name, as a violation names it
 * @param {object} from which modules it holds (dependency-cruiser's `from`)
 * @param {object} to which of their imports it forbids (`to`)
 * @param {string} [comment] why
 */
const forbid = (name, from, to, comment = "") => ({ name, comment, severity: "error", from, to });

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    forbid(
      "no-circular",
      {},
      { circular: true },
      "A cycle makes the order modules are evaluated in depend on which is imported first.",
    ),
    forbid(
      "kernel-imports-nothing-of-ours",
      { path: "^kernel/" },
      { path: allBut("kernel") },
      "kernel/ holds the rules every room stands on; it imports nothing of ours beyond itself.",
    ),
    forbid(
      "rpc-uses-kernel-only",
      { path: "^rpc/" },
      { path: allBut("kernel", "rpc") },
      "rpc/ is the release executable's own gRPC on node:http2: the transport, below every room that serves on it.",
    ),
    forbid(
      "rpc-used-by-plugin-and-analyzer-only",
      { pathNot: "^(rpc|provider/native|policy|tests|bench)/" },
      { path: "^rpc/" },
      "rpc/ has two users, the native plugin and the analyzer (and the tests and benchmark that drive them); every other room stays off the wire.",
    ),
    forbid(
      "program-uses-kernel-only",
      { path: "^program/" },
      { path: allBut("kernel", "program") },
      "A Pulumi program's import loads kernel/ only; the provider is reached through the serialized shim.",
    ),
    forbid("auth-uses-kernel-only", { path: "^auth/" }, { path: allBut("kernel", "auth") }),
    forbid(
      "provider-uses-kernel-auth-and-rpc",
      { path: "^provider/" },
      { path: allBut("kernel", "auth", "rpc", "provider") },
      "Of the provider, only native/ serves gRPC (rpc-used-by-plugin-and-analyzer-only).",
    ),
    forbid(
      "provider-core-reaches-no-front-end",
      { path: "^provider/core/" },
      { path: "^provider/(native|dynamic)/|node_modules/@pulumi/" },
      "The core is protocol-neutral: neither front end, nor the Pulumi SDK.",
    ),
    forbid(
      "native-front-end-never-loads-the-dynamic-one",
      { path: "^provider/native/" },
      { path: "^provider/dynamic/" },
    ),
    forbid(
      "dynamic-front-end-never-loads-the-native-one",
      { path: "^provider/dynamic/" },
      { path: "^provider/native/" },
    ),
    forbid(
      "policy-uses-kernel-and-rpc-only",
      { path: "^policy/" },
      { path: allBut("kernel", "rpc", "policy") },
      "The policy pack reaches no credential and no network: kernel/, the analyzer's gRPC (rpc/) and itself only.",
    ),
    forbid(
      "analyzer-loads-no-pulumi-sdk",
      { path: "^policy/(analyzer|server|proto|policies|rules)\\.ts$" },
      { path: "node_modules/@pulumi/(policy|pulumi/(?!proto/))" },
      "The release executable's analyzer serves the policies itself: no @pulumi/policy, and of @pulumi/pulumi only the protocol stubs (proto/).",
    ),
    forbid(
      "emulator-uses-kernel-only",
      { path: "^emulator/" },
      { path: allBut("kernel", "emulator") },
      "The emulator is the other side of the wire: no client of it (auth/, emulator-client/) is loaded by it.",
    ),
    forbid(
      "emulator-modules-skip-its-public-entry",
      { path: "^emulator/", pathNot: "^emulator/index\\.ts$" },
      { path: "^emulator/index\\.ts$" },
      "emulator/index.ts is the public entry; the server side (start.ts and all it loads) never imports it.",
    ),
    forbid(
      "emulator-types-stand-alone",
      { path: "^emulator/types\\.ts$" },
      { path: "^emulator/" },
      "emulator/types.ts, shared by the server and its clients, imports nothing of the emulator.",
    ),
    forbid(
      "emulator-client-uses-kernel-auth-and-the-route-shapes",
      { path: "^emulator-client/" },
      { path: allBut("kernel", "auth", "emulator-client", "emulator") },
    ),
    forbid(
      "emulator-client-uses-only-the-route-shapes-of-the-emulator",
      { path: "^emulator-client/" },
      { path: "^emulator/", pathNot: "^emulator/types\\.ts$" },
    ),
    forbid(
      "cli-reaches-no-provider-no-policy",
      { path: "^cli/" },
      { path: anyOf("bin", "program", "provider", "policy", ...DEVELOPMENT_ROOMS) },
      "The CLI stands beside the provider and the policy pack; bin/ is what joins them in one executable.",
    ),
    forbid(
      "not-to-dev-dep",
      { path: anyOf(...ROOMS) },
      // A peer dependency (@pulumi/pulumi, @pulumi/policy) is listed among the devDependencies too, to be installed
      // here: the user's project provides it. A type-only import loads nothing at run time (it is erased).
      { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["npm-peer", "type-only"] },
      "Shipped code runs where only `dependencies` are installed: a devDependency it loads is missing there.",
    ),
    forbid(
      "no-non-package-json",
      {},
      { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
      "A package package.json does not list is there by chance (another package's dependency, hoisted): name it.",
    ),
    forbid(
      "cli-wings-reach-no-other-wing",
      { path: "^cli/([^/]+)/", pathNot: "^cli/shared/" },
      { path: "^cli/[^/]+/", pathNot: "^cli/($1|shared|adopt)/" },
      "A command is one folder (cli/<command>/): it uses its own modules, cli/shared/ and the adoption of cli/adopt/.",
    ),
    forbid(
      "cli-adopt-serves-import-and-migrate",
      { path: "^cli/", pathNot: "^cli/(import|migrate|adopt)/" },
      { path: "^cli/adopt/" },
    ),
    forbid(
      "cli-shared-uses-no-wing",
      { path: "^cli/shared/" },
      { path: "^cli/", pathNot: "^cli/shared/" },
      "cli/shared/ serves every command and belongs to none.",
    ),
    forbid(
      "cli-main-adds-commands-only",
      { path: "^cli/main\\.ts$" },
      { path: "^cli/[^/]+/", pathNot: "^cli/([^/]+/command|shared/[^/]+)\\.ts$" },
      "The program adds each wing's command (cli/<command>/command.ts), whose action loads only when it runs.",
    ),
    forbid(
      "receiver-uses-kernel-only",
      { path: "^receiver/" },
      { path: allBut("kernel", "receiver") },
      "The receiver kits run in services with no Pulumi and no provider: the delivery's rules in kernel/, nothing else of ours.",
    ),
    forbid(
      "receiver-uses-the-delivery-modules-of-kernel",
      { path: "^receiver/" },
      { path: "^kernel/", pathNot: "^kernel/(delivery-token|record-schemas|events|errors)\\.ts$" },
      "The kits bundle what they import: the token, the records, the events and the error family, none of which loads node: or the Node.js guard.",
    ),
    forbid(
      "receiver-loads-no-node-module",
      { path: "^(receiver/|kernel/(delivery-token|record-schemas|events|errors)\\.ts$)" },
      { dependencyTypes: ["core"], dependencyTypesNot: ["type-only"] },
      "The fetch handler runs on serverless and edge runtimes, which have no node: modules; the Node.js handler needs only their types.",
    ),
    forbid(
      "bin-loads-programs-only",
      { path: "^bin/" },
      { path: allBut("bin", "kernel"), pathNot: "^(cli/main|provider/native/main|policy/analyzer)\\.ts$" },
      "An executable's entry loads its program's module and kernel/, nothing else.",
    ),
  ],
  options: {
    tsPreCompilationDeps: true,
    // node_modules is not followed (doNotFollow) but kept as leaves, so that rules can name packages.
    exclude: { path: "^(dist|sdk)/" },
    doNotFollow: { path: "node_modules" },
    // Node.js's own modules are kept too, as leaves named without `node:` (`fs`), so that a rule can forbid them
    // (`receiver-loads-no-node-module`).
    includeOnly: `\\.(ts|mts|cts|js|mjs|cjs)$|^(${builtinModules.map((name) => name.replace(/^node:/, "")).join("|")})$`,
    tsConfig: { fileName: "tsconfig.check.json" },
    enhancedResolveOptions: {
      extensions: [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json"],
      // Packages' subpaths resolve through their package.json `exports` (`csv-parse/sync`), as Node.js and tsc do.
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
