import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Serializes the Webhook provider exactly as `dynamic.Resource` does, in plain Node on the built package (vitest's own
 * module transform would otherwise be serialized along with it).
 */
function serializeProvider(): string {
  const script = `
    import * as pulumi from "@pulumi/pulumi";
    const { webhookProviderShim } = await import(${JSON.stringify(pathToFileURL(`${root}dist/sdk/webhook.js`).href)});
    const { text } = await pulumi.runtime.serializeFunction(() => webhookProviderShim, { allowSecrets: true });
    process.stdout.write(text);`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
}

describe("the serialized Webhook provider (__provider in state)", () => {
  it("is a small shim that loads the implementation by package path", () => {
    const text = serializeProvider();
    const bytes = Buffer.byteLength(text);
    console.log(`serialized __provider: ${bytes} bytes`);
    expect(bytes).toBeLessThan(4096);
    expect(text).toContain('"pulumi-helpdesk/provider"');
    // Nothing of the implementation or its libraries is captured.
    expect(text).not.toMatch(/zod|undici|Bearer|accessToken/);
  });
});
