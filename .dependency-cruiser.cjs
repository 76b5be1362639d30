/**
 * The rooms' import boundaries (docs/design.md "Rooms", "Direction of dependencies"), checked by `npm run lint`
 * (`depcruise`) over the TypeScript source before compilation, type-only imports included (`tsPreCompilationDeps`).
 * Specifiers end in `.js` (NodeNext) and name `.ts` files: read with tsconfig.check.json, they resolve to them.
 * Each rule says what a room may not import; a room not named here may import any room below it.
 */

/** The rooms of hand-written code that ships, each a top-level folder. */
const ROOMS = ["bin", "kernel", "program", "auth", "provider", "policy", "cli", "emulator", "emulator-client"];

/** A `to.path` matching the files of the top-level folders `rooms` (`emulator/` does not match `emulator-client/`). */
const anyOf = (...rooms) => `^(${rooms.join("|")})/`;

/** The rooms other than `allowed`, plus tests, bench and scripts (which no shipped room imports). */
const allBut = (...allowed) => anyOf(...ROOMS.filter((room) => !allowed.includes(room)), "tests", "bench", "scripts");

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A cycle makes the order modules are evaluated in depend on which is imported first.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "kernel-imports-nothing-of-ours",
      comment: "kernel/ holds the rules every room stands on; it imports nothing of ours beyond itself.",
      severity: "error",
      from: { path: "^kernel/" },
      to: { path: allBut("kernel") },
    },
    {
      name: "program-uses-kernel-only",
      comment: "A Pulumi program's import loads kernel/ only; the provider is reached through the serialized shim.",
      severity: "error",
      from: { path: "^program/" },
      to: { path: allBut("kernel", "program") },
    },
    {
      name: "auth-uses-kernel-only",
      severity: "error",
      from: { path: "^auth/" },
      to: { path: allBut("kernel", "auth") },
    },
    {
      name: "provider-uses-kernel-and-auth",
      severity: "error",
      from: { path: "^provider/" },
      to: { path: allBut("kernel", "auth", "provider") },
    },
    {
      name: "provider-core-reaches-no-front-end",
      comment: "The core is protocol-neutral: neither front end, nor the Pulumi SDK.",
      severity: "error",
      from: { path: "^provider/core/" },
      to: { path: "^provider/(native|dynamic)/|node_modules/@pulumi/" },
    },
    {
      name: "native-front-end-never-loads-the-dynamic-one",
      severity: "error",
      from: { path: "^provider/native/" },
      to: { path: "^provider/dynamic/" },
    },
    {
      name: "dynamic-front-end-never-loads-the-native-one",
      severity: "error",
      from: { path: "^provider/dynamic/" },
      to: { path: "^provider/native/" },
    },
    {
      name: "policy-uses-kernel-only",
      comment: "The policy pack reaches no credential and no network: kernel/ and itself only.",
      severity: "error",
      from: { path: "^policy/" },
      to: { path: allBut("kernel", "policy") },
    },
    {
      name: "emulator-uses-kernel-only",
      comment: "The emulator is the other side of the wire: no client of it (auth/, emulator-client/) is loaded by it.",
      severity: "error",
      from: { path: "^emulator/" },
      to: { path: allBut("kernel", "emulator") },
    },
    {
      name: "emulator-modules-skip-its-public-entry",
      comment: "emulator/index.ts is the public entry; the server side (start.ts and all it loads) never imports it.",
      severity: "error",
      from: { path: "^emulator/", pathNot: "^emulator/index\\.ts$" },
      to: { path: "^emulator/index\\.ts$" },
    },
    {
      name: "emulator-types-stand-alone",
      comment: "emulator/types.ts, shared by the server and its clients, imports nothing of the emulator.",
      severity: "error",
      from: { path: "^emulator/types\\.ts$" },
      to: { path: "^emulator/" },
    },
    {
      name: "emulator-client-uses-kernel-auth-and-the-route-shapes",
      severity: "error",
      from: { path: "^emulator-client/" },
      to: { path: allBut("kernel", "auth", "emulator-client", "emulator"), pathNot: "^emulator/types\\.ts$" },
    },
    {
      name: "emulator-client-uses-only-the-route-shapes-of-the-emulator",
      severity: "error",
      from: { path: "^emulator-client/" },
      to: { path: "^emulator/", pathNot: "^emulator/types\\.ts$" },
    },
    {
      name: "cli-reaches-no-provider-no-policy",
      comment: "The CLI stands beside the provider and the policy pack; bin/ is what joins them in one executable.",
      severity: "error",
      from: { path: "^cli/" },
      to: { path: anyOf("bin", "program", "provider", "policy", "tests", "bench", "scripts") },
    },
    {
      name: "bin-loads-programs-only",
      comment: "An executable's entry loads its program's module and kernel/, nothing else.",
      severity: "error",
      from: { path: "^bin/" },
      to: {
        path: allBut("bin", "kernel"),
        pathNot: "^(cli/main|provider/native/main|policy/analyzer)\\.ts$",
      },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    exclude: { path: "(^|/)(node_modules|dist)/|^sdk/" },
    doNotFollow: { path: "node_modules" },
    includeOnly: "\\.(ts|mts|cts|js|mjs|cjs)$",
    tsConfig: { fileName: "tsconfig.check.json" },
    enhancedResolveOptions: { extensions: [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json"] },
  },
};
