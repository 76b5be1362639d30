/**
 * examples/typescript as a person runs it from the release (see ../no-node/no-node-desks.ts for the suite): a fresh
 * project folder with the example's files, the release's TypeScript SDK tarball (`@pulumi-helpdesk/helpdesk`) and
 * `@pulumi/pulumi` installed by `npm install`, an empty plugin cache, and every plugin download sent to a local
 * mirror of the release. The SDK's package.json "pulumi" section names the plugin, so `pulumi up` downloads the
 * linux-amd64 archive and runs its executable: one webhook on each of two help desks, signed in to by the release's
 * CLI; `pulumi destroy` removes both.
 *
 * The Node.js language host built here ignores Pulumi.yaml's `runtime.options` (docs/design.md "The toolchain"), so the run sets
 * `PULUMI_NODEJS_TYPESCRIPT=false` as a current host does for `typescript: false`: Node.js itself strips the types.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nodejsSdkPackage } from "../../kernel/names.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { nodejsSdkTarball } from "../../scripts/release/nodejs-sdk.ts";
import { describeDownloadedPlugin, VERSION } from "../no-node/no-node-desks.js";
import { sharedRelease } from "../support/release.js";

describeDownloadedPlugin("examples/typescript with the release's TypeScript SDK: the plugin downloaded by Pulumi", {
  hosts: ["pulumi-language-nodejs"],
  node: true,
  project: "helpdesk-typescript",
  prepare: async (_work, programDir) => {
    const example = join(repoRoot, "examples", "typescript");
    for (const file of ["Pulumi.yaml", "index.ts"]) copyFileSync(join(example, file), join(programDir, file));
    // The example's package.json, its SDK taken from the release instead of the registry (not published from here).
    const pkg = JSON.parse(readFileSync(join(example, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const sdk = nodejsSdkPackage();
    if (!pkg.dependencies[sdk]) throw new Error(`examples/typescript/package.json does not depend on ${sdk}`);
    pkg.dependencies[sdk] = `file:${join(await sharedRelease(), nodejsSdkTarball(VERSION))}`;
    writeFileSync(join(programDir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
      cwd: programDir,
      stdio: ["ignore", "ignore", "pipe"],
    });
    return { env: { PULUMI_NODEJS_TYPESCRIPT: "false" } };
  },
});
