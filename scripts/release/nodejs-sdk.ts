/**
 * The TypeScript SDK as its own npm package (`@pulumi-helpdesk/helpdesk`, the schema's `language.nodejs.packageName`),
 * laid out as Pulumi's providers publish theirs (their `sdk/nodejs/bin/`): the compiled CommonJS modules and their
 * type declarations at the package's root, beside the generated `package.json` whose "pulumi" section (`resource`,
 * `name`, `version`, `server` = the plugin download URL) makes the Node.js language host report the plugin a program
 * needs, so that `pulumi up` installs it before running the program.
 *
 * The modules are the build's `dist/native/` (scripts/build.sh compiles the generated sdk/nodejs there for the entry
 * `pulumi-helpdesk/native`): one compilation serves both. The package.json is sdk/nodejs's, unchanged.
 */

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { required } from "../../kernel/required.ts";
import { ROOT } from "./executable.ts";

/** The generated SDK's folder (scripts/sdk/nodejs.sh). */
const GENERATED = join(ROOT, "sdk", "nodejs");
/** Where scripts/build.sh compiles it. */
const COMPILED = join(ROOT, "dist", "native");

/** The generated package.json's fields this module reads. */
interface SdkPackageJson {
  name: string;
  version: string;
  pulumi: { resource: boolean; name: string; version: string; server: string };
}

/**
 * @returns sdk/nodejs/package.json
 * @throws Error when it is missing (run scripts/sdk/nodejs.sh)
 */
export function nodejsSdkPackageJson(): SdkPackageJson {
  return JSON.parse(readFileSync(join(GENERATED, "package.json"), "utf8")) as SdkPackageJson;
}

/**
 * The tarball `npm pack` writes for the SDK: `@<scope>/<name>` becomes `<scope>-<name>-<version>.tgz`.
 *
 * @param version e.g. `"0.1.0"`
 * @returns e.g. `"pulumi-helpdesk-helpdesk-0.1.0.tgz"`
 * @throws Error when sdk/nodejs/package.json is missing
 */
export function nodejsSdkTarball(version: string): string {
  return `${nodejsSdkPackageJson().name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

/**
 * Writes the package's files into `dir` (created): `dist/native/**` but its package.json, then sdk/nodejs's
 * package.json and README.md, and the repository's LICENSE.
 *
 * @param dir the package folder to write, e.g. `<project>/node_modules/@pulumi-helpdesk/helpdesk`
 * @throws Error when dist/native is missing or was compiled from another version of the SDK (run `npm run build`)
 */
export function stageNodejsSdk(dir: string): void {
  const sdk = nodejsSdkPackageJson();
  const compiledPackage = join(COMPILED, "package.json");
  if (!existsSync(compiledPackage)) throw new Error(`${COMPILED} is missing: run npm run build`);
  const compiled = JSON.parse(readFileSync(compiledPackage, "utf8")) as { version: string };
  if (compiled.version !== sdk.version) {
    throw new Error(
      `${COMPILED} holds ${sdk.name} ${compiled.version}, sdk/nodejs is ${sdk.version}: run npm run build`,
    );
  }
  cpSync(COMPILED, dir, { recursive: true, filter: (source) => source !== compiledPackage });
  for (const file of ["package.json", "README.md"]) cpSync(join(GENERATED, file), join(dir, file));
  cpSync(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
}

/**
 * Packs the package (`npm pack`) into `out`.
 *
 * @param out the release folder
 * @returns the tarball's file name, e.g. `pulumi-helpdesk-helpdesk-0.1.0.tgz`
 * @throws Error as {@link stageNodejsSdk}, or when `npm pack` fails
 */
export function packNodejsSdk(out: string): string {
  const staging = mkdtempSync(join(out, ".staging-nodejs-"));
  try {
    stageNodejsSdk(staging);
    const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], {
      cwd: staging,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    return required(packed.trim().split("\n").at(-1), "the file npm pack wrote");
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
