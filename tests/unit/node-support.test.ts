import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MINIMUM_NODE_VERSION, nodeVersionProblem } from "../../kernel/node-support.js";

describe("the supported Node.js versions (one rule: kernel/node-support.ts)", () => {
  it("package.json's engines states the same floor", () => {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(`>=${MINIMUM_NODE_VERSION}`);
  });

  it.each(["22.12.0", "22.12.1", "22.20.0", "23.0.0", "24.21.0", "30.1.2"])("accepts %s", (version) => {
    expect(nodeVersionProblem(version)).toBeUndefined();
  });

  it.each(["22.11.0", "22.0.0", "20.20.2", "18.19.0", "0.10.48"])("refuses %s in one line naming both versions and how to get one", (version) => {
    const problem = nodeVersionProblem(version);
    expect(problem).toBe(
      `pulumi-helpdesk needs Node.js >= 22.12.0, but this is Node.js ${version}: install Node.js 22.12 or newer (e.g. the current LTS from nodejs.org, or \`nvm install --lts\`).`,
    );
    expect(problem).not.toContain("\n");
  });

  it("accepts the running Node.js (the tests run on a supported one)", () => {
    expect(nodeVersionProblem()).toBeUndefined();
  });
});
