/**
 * The rooms have one list (scripts/lib/rooms.cjs): the lists that cannot import it, the two tsconfig files' `include`
 * (JSON), are held equal to it here, and every top-level folder of hand-written TypeScript is one of its rooms, so a
 * new room cannot be left out of the import rules (.dependency-cruiser.cjs), the lint (scripts/lint.sh) or the build.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { DEVELOPMENT_ROOMS, SHIPPED_ROOMS } from "../../scripts/lib/rooms.cjs";

/** A tsconfig file's `include`, read as TypeScript reads it (comments allowed). */
function includeOf(file: string): string[] {
  const read = ts.parseConfigFileTextToJson(file, readFileSync(join(repoRoot, file), "utf8"));
  if (read.error) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(read.error.messageText, "\n")}`);
  return (read.config as { include: string[] }).include;
}

const globs = (rooms: readonly string[]): string[] => rooms.map((room) => `${room}/**/*.ts`);

describe("the rooms' one list (scripts/lib/rooms.cjs)", () => {
  it("tsconfig.json builds exactly the shipped rooms", () => {
    expect(includeOf("tsconfig.json").toSorted()).toEqual(globs(SHIPPED_ROOMS).toSorted());
  });

  it("tsconfig.check.json type-checks every room and the test runner's configuration", () => {
    expect(includeOf("tsconfig.check.json").toSorted()).toEqual(
      [...globs(SHIPPED_ROOMS), ...globs(DEVELOPMENT_ROOMS), "vitest.config.ts"].toSorted(),
    );
  });

  it("every top-level folder of hand-written TypeScript is a room (sdk/ is generated)", () => {
    const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    const folders = new Set(
      tracked
        .split("\n")
        .filter((path) => path.includes("/"))
        .map((path) => path.slice(0, path.indexOf("/"))),
    );
    folders.delete("sdk");
    expect([...folders].toSorted()).toEqual([...SHIPPED_ROOMS, ...DEVELOPMENT_ROOMS].toSorted());
  });
});
