/**
 * The receiver kits' packages (receiver/, issue 44), each its own, since a service that receives deliveries installs
 * no Pulumi:
 *
 * - the TypeScript kit's npm package (kernel/names.ts `receiverNpmPackage`, `@pulumi-helpdesk/receiver`), packed from
 *   the build (scripts/build.sh compiles receiver/nodejs/ into dist/, as scripts/release/nodejs-sdk.ts packs the SDK
 *   from dist/native/): the kit's compiled modules and type declarations, and the modules of kernel/ they import (found
 *   by following their imports: .dependency-cruiser.cjs holds them to the delivery's four), at their places under
 *   `dist/` so that the relative imports hold; a package.json written here, whose one dependency is zod at the range
 *   of the repository's package.json;
 * - the Python kit's wheel and sdist (`pulumi-helpdesk-receiver`), built as scripts/release/python.ts builds the
 *   Python SDK's: PyPA's `build` with setuptools from the pinned build virtualenv, `--no-isolation`, from a copy of
 *   receiver/python/ (its generated pyproject.toml, its README, the repository's LICENSE; not its tests).
 *
 * The Go kit is its module in the repository (receiver/go), which `go get` takes from a tag `receiver/go/v<version>`.
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import {
  PULUMI_PACKAGE,
  RECEIVER,
  RECEIVER_PYTHON_PACKAGE,
  receiverNpmPackage,
  repositoryUrl,
} from "../../dist/kernel/names.js"; // from the build, as executable.ts says
import { pythonArtefactNamesOf } from "../publish/prerelease.ts";
import { run } from "./cache.ts";
import { ROOT } from "./executable.ts";
import { buildVenvPython } from "./python.ts";

/** Where the build compiles the TypeScript kit's entry (scripts/build.sh, tsconfig.json's include of receiver/). */
const ENTRY = "dist/receiver/nodejs/index.js";

/** The repository's package.json fields this module reads. */
interface RootPackageJson {
  version: string;
  license: string;
  repository: unknown;
  dependencies: Record<string, string>;
}

function rootPackageJson(): RootPackageJson {
  return JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as RootPackageJson;
}

/**
 * The build's files of the TypeScript kit: its entry and every module it imports by a relative path, each with its
 * type declaration, as repository-relative paths under dist/.
 *
 * @throws Error when dist/ lacks the kit (run `npm run build`)
 */
export function receiverNpmFiles(): string[] {
  if (!existsSync(join(ROOT, ENTRY))) throw new Error(`${ENTRY} is missing: run npm run build`);
  const found = new Set<string>();
  const queue = [ENTRY, ENTRY.replace(/\.js$/, ".d.ts")];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (found.has(file)) continue;
    found.add(file);
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
      const target = posix.normalize(posix.join(posix.dirname(file), match[1] ?? ""));
      if (!target.startsWith("dist/")) throw new Error(`${file} imports ${match[1]}, outside dist/`);
      queue.push(target);
      if (target.endsWith(".js")) queue.push(target.replace(/\.js$/, ".d.ts"));
    }
  }
  return [...found].sort();
}

/**
 * The npm package's package.json: an ES module package whose entry is the kit's, with zod as its one dependency.
 *
 * @param version the release version
 */
export function receiverPackageJson(version: string = rootPackageJson().version): Record<string, unknown> {
  const root = rootPackageJson();
  const zod = root.dependencies.zod;
  if (!zod) throw new Error("package.json has no zod dependency, which the receiver kit's records need");
  return {
    name: receiverNpmPackage(),
    version,
    description:
      "Receives help-desk webhook deliveries: verifies their delivery token and parses their records, for Node.js http, Express, and Web-standard fetch handlers (serverless, edge).",
    keywords: [PULUMI_PACKAGE, "webhooks", RECEIVER, "webhook-verification", "serverless", "edge"],
    license: root.license,
    repository: { type: "git", url: `git+${repositoryUrl()}.git`, directory: "receiver/nodejs" },
    type: "module",
    // Tested on Node.js 20 and 24 (tests/receiver/packages.test.ts); a fetch handler needs no Node.js at all.
    engines: { node: ">=20" },
    exports: {
      ".": { types: `./${ENTRY.replace(/\.js$/, ".d.ts")}`, default: `./${ENTRY}` },
      "./package.json": "./package.json",
    },
    types: `./${ENTRY.replace(/\.js$/, ".d.ts")}`,
    sideEffects: false,
    dependencies: { zod },
  };
}

/**
 * Writes the npm package's files into `dir` (created): the build's files of the kit, package.json, the kit's README
 * and the repository's LICENSE.
 *
 * @throws Error as {@link receiverNpmFiles}
 */
export function stageReceiverNpm(dir: string, version?: string): void {
  for (const file of receiverNpmFiles()) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(receiverPackageJson(version), null, 2)}\n`);
  cpSync(join(ROOT, "receiver", "nodejs", "README.md"), join(dir, "README.md"));
  cpSync(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
}

/**
 * Packs the npm package (`npm pack`) into `out`.
 *
 * @returns the tarball's file name, e.g. `pulumi-helpdesk-receiver-0.3.0.tgz`
 * @throws Error as {@link stageReceiverNpm}, or when `npm pack` fails
 */
export function packReceiverNpm(out: string, version?: string): string {
  const staging = mkdtempSync(join(out, ".staging-receiver-npm-"));
  try {
    stageReceiverNpm(staging, version);
    const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], {
      cwd: staging,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const name = packed.trim().split("\n").pop();
    if (!name) throw new Error("npm pack named no tarball");
    return name;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Builds the Python kit's wheel and sdist into `out`.
 *
 * @param out the folder to write them to
 * @param version the release version (the generated pyproject.toml's, in its PEP 440 form)
 * @param sourceDateEpoch seconds since 1970 for the wheel's time stamps
 * @returns the two file names written, wheel first
 * @throws Error when pyproject.toml is not this version's (run scripts/receiver/generate.ts), or a build step fails
 */
export function buildReceiverPython(out: string, version: string, sourceDateEpoch: string): string[] {
  const kit = join(ROOT, "receiver", "python");
  const names = pythonArtefactNamesOf(RECEIVER_PYTHON_PACKAGE, version);
  const wheelVersion = names.wheel.split("-")[1];
  if (!readFileSync(join(kit, "pyproject.toml"), "utf8").includes(`\nversion = "${wheelVersion}"\n`))
    throw new Error(`receiver/python/pyproject.toml is not version ${version}: run node scripts/receiver/generate.ts`);
  const python = buildVenvPython();
  const staging = mkdtempSync(join(out, ".staging-receiver-python-"));
  try {
    const project = join(staging, "project");
    cpSync(kit, project, {
      recursive: true,
      filter: (source) => !/(^|\/)(tests|__pycache__|build|[^/]*\.egg-info)$/.test(relative(kit, source)),
    });
    cpSync(join(ROOT, "LICENSE"), join(project, "LICENSE"));
    const built = join(staging, "built");
    run(python, ["-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", built, project], {
      env: { ...process.env, SOURCE_DATE_EPOCH: sourceDateEpoch, PIP_NO_INDEX: "1", PYTHONDONTWRITEBYTECODE: "1" },
    });
    const found = readdirSync(built).sort();
    if (found.join(" ") !== [names.sdist, names.wheel].sort().join(" "))
      throw new Error(`python -m build wrote ${found.join(", ")}; expected ${names.wheel} and ${names.sdist}`);
    for (const name of [names.wheel, names.sdist]) renameSync(join(built, name), join(out, name));
    return [names.wheel, names.sdist];
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
