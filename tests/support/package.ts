/**
 * Test support: the npm package as a user receives it. Packs the repository the way `npm pack` from a clean clone
 * does (its `prepack` builds dist/), without touching this checkout's dist/ that other suites are using.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { repoRoot } from "../../scripts/lib/repo-root.ts";

/** What `npm pack --json` reports of one tarball. */
export interface PackedTarball {
  /** Absolute path of the `.tgz`. */
  path: string;
  /** Compressed size in bytes. */
  size: number;
  /** Unpacked size in bytes. */
  unpackedSize: number;
  /** Paths inside the package, e.g. `dist/program/index.js`. */
  files: string[];
}

/**
 * Copies the working tree as a clean clone of it would hold it: the files git tracks plus new ones it does not
 * ignore (so no dist/, node_modules/ or caches).
 *
 * @param into the folder to make (must not exist or be empty)
 * @returns `into`
 * @throws Error when git fails
 */
export function workingTreeCopy(into: string): string {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  for (const file of listed.split("\0").filter(Boolean)) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    try {
      cpSync(join(repoRoot, file), join(into, file));
    } catch (error) {
      // A file deleted in the working tree but still tracked is not part of what would be committed next.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return into;
}

/**
 * Packs the package from a copy of the working tree ({@link workingTreeCopy}): the files git tracks plus new ones it does not ignore (so no
 * dist/, node_modules/ or caches), with this checkout's node_modules linked for the build tools. `npm pack` runs the
 * package's `prepack`, which builds dist/ in the copy: the tarball is what a clean clone would publish.
 *
 * @param into directory for the copy and the tarball (default: a new temporary directory)
 * @throws Error when git, the build or `npm pack` fails (the message carries their output)
 */
export function packLikeACleanClone(into = mkdtempSync(join(tmpdir(), "helpdesk-pack-"))): PackedTarball {
  const source = workingTreeCopy(join(into, "source"));
  symlinkSync(join(repoRoot, "node_modules"), join(source, "node_modules"), "dir");
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", into], {
    cwd: source,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  const [report] = JSON.parse(out) as Array<{
    filename: string;
    size: number;
    unpackedSize: number;
    files: Array<{ path: string }>;
  }>;
  if (!report) throw new Error(`npm pack printed no report: ${out}`);
  return {
    path: join(into, report.filename),
    size: report.size,
    unpackedSize: report.unpackedSize,
    files: report.files.map((f) => f.path),
  };
}
