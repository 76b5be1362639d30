import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  MINIMUM_NODE_VERSION,
  NODE_FLOORS,
  nodeVersionProblem,
  SUPPORTED_NODE_RANGE,
  SUPPORTED_NODE_TEXT,
} from "../../kernel/node-support.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { installedDependencies, rangeAdmits } from "../support/engines.js";

const enginesOf = (file: string): string =>
  (JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), "utf8")) as { engines: { node: string } }).engines
    .node;

/** Versions on both sides of every floor and between the lines. */
const accepted = ["22.20.0", "22.20.1", "22.23.3", "22.99.0", "24.7.0", "24.21.0", "25.0.0", "26.10.0", "30.1.2"];
const refused = [
  "22.19.0",
  "22.12.0",
  "22.0.0",
  "23.0.0",
  "23.11.1",
  "24.0.0",
  "24.6.0",
  "21.7.3",
  "20.20.2",
  "18.19.0",
  "0.10.48",
];

describe("the supported Node.js versions (one rule: kernel/node-support.ts)", () => {
  it("states the floors as a range and in words", () => {
    expect(NODE_FLOORS).toEqual(["22.20.0", "24.7.0"]);
    expect(MINIMUM_NODE_VERSION).toBe("22.20.0");
    expect(SUPPORTED_NODE_RANGE).toBe("^22.20.0 || >=24.7.0");
    expect(SUPPORTED_NODE_TEXT).toBe("Node.js 22.20.0 or a later 22.x, or 24.7.0 or newer");
  });

  it("package.json's engines and the TypeScript example's state the same range", () => {
    expect(enginesOf("package.json")).toBe(SUPPORTED_NODE_RANGE);
    expect(enginesOf("examples/typescript/package.json")).toBe(SUPPORTED_NODE_RANGE);
  });

  it.each(accepted)("accepts %s", (version) => {
    expect(nodeVersionProblem(version)).toBeUndefined();
  });

  it.each(refused)("refuses %s in one line naming the versions needed, the one found and how to get one", (version) => {
    const problem = nodeVersionProblem(version);
    expect(problem).toBe(
      `pulumi-helpdesk needs Node.js 22.20.0 or a later 22.x, or 24.7.0 or newer, but this is Node.js ${version}: install a supported one (e.g. the current LTS from nodejs.org, or \`nvm install --lts\`).`,
    );
    expect(problem).not.toContain("\n");
  });

  it("accepts the running Node.js (the tests run on a supported one)", () => {
    expect(nodeVersionProblem()).toBeUndefined();
  });

  it("scripts/setup.sh's reader of engines.node (scripts/lib/node-supported.cjs) admits exactly what the rule accepts", () => {
    const reader = "scripts/lib/node-supported.cjs";
    for (const version of [...accepted, ...refused]) {
      const { status, stderr } = spawnSync(process.execPath, [reader, version], { cwd: repoRoot, encoding: "utf8" });
      expect({ version, status, stderr }).toEqual({
        version,
        status: nodeVersionProblem(version) === undefined ? 0 : 1,
        stderr: "",
      });
    }
    expect(
      execFileSync(process.execPath, [reader, "--floors"], { cwd: repoRoot, encoding: "utf8" }).trim().split("\n"),
    ).toEqual([...NODE_FLOORS]);
    expect(execFileSync(process.execPath, [reader, "--range"], { cwd: repoRoot, encoding: "utf8" }).trim()).toBe(
      SUPPORTED_NODE_RANGE,
    );
  });

  it("every package a user's installation loads admits each floor (engines.node of the dependencies and @pulumi/pulumi's, recursively)", () => {
    const packages = installedDependencies(repoRoot);
    expect(packages.map((p) => p.name)).toEqual(
      expect.arrayContaining(["undici", "commander", "hono", "@pulumi/pulumi", "@grpc/grpc-js"]),
    );
    const refusing = packages.flatMap((p) =>
      NODE_FLOORS.filter((floor) => p.enginesNode !== undefined && !rangeAdmits(p.enginesNode, floor)).map(
        (floor) => `${p.name}@${p.version} (engines.node ${p.enginesNode}) refuses ${floor}`,
      ),
    );
    expect(refusing).toEqual([]);
  });

  it.each([
    [">=22.19.0", "22.19.0", true],
    [">=22.19.0", "22.18.9", false],
    [">=22", "22.0.0", true],
    [">=22", "21.99.0", false],
    ["^22.12.0 || ^24.0.0 || >=26.0.0", "23.11.1", false],
    ["^22.12.0 || ^24.0.0 || >=26.0.0", "24.7.0", true],
    ["^20.17.0 || >=22.9.0", "21.0.0", false],
    ["18 || 20 || >=22", "19.9.9", false],
    ["18 || 20 || >=22", "20.20.2", true],
    ["6.* || 8.* || >= 10.*", "22.20.0", true],
    ["6.* || 8.* || >= 10.*", "7.0.0", false],
    [">=14.16", "14.15.9", false],
    [">=16 || 14 >=14.17", "14.17.0", true],
    [">=16 || 14 >=14.17", "14.16.0", false],
    [">=9.3.0 || >=8.10.0 <9.0.0", "9.0.0", false],
    ["~22.20.0", "22.21.0", false],
    ["^0.2.3", "0.3.0", false],
  ] as const)("reads engines.node %s as npm does for %s", (range, version, admitted) => {
    expect(rangeAdmits(range, version)).toBe(admitted);
  });
});
