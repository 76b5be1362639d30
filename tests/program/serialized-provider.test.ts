/**
 * The serialized Webhook provider: the `__provider` text stored twice in every Webhook's state and evaluated by
 * Pulumi's dynamic provider host. Everything runs in plain Node child processes on the built package (vitest's module
 * transform would otherwise be serialized along with it), the way Pulumi does it: serialized like `dynamic.Resource`
 * does, evaluated with `require-from-string` in a program directory like the host does.
 */

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { testTempDir } from "../support/temp.js";

/** A program directory inside the package, as the host's working directory (the e2e suite's program). */
const programDir = join(repoRoot, "tests/e2e/program");

/** Serializes the Webhook provider exactly as `dynamic.Resource` does: `serializeFunction(() => provider, ...)`. */
function serializeProvider(): string {
  const script = `
    import * as pulumi from "@pulumi/pulumi";
    const { webhookProviderShim: provider } = await import(${JSON.stringify(pathToFileURL(`${repoRoot}dist/program/webhook.js`).href)});
    const { text } = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
    process.stdout.write(text);`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8" });
}

/**
 * Evaluates the serialized provider as Pulumi's dynamic provider host does (`requireFromString(text).handler()`, then
 * `configure({config})`) in `cwd`, runs `body` (a CommonJS async function body with `provider`, `configuring` (the
 * promise of `configure`), `loaded` (every module URL resolved since the host's own modules) and `report(value)`),
 * and returns what it reported.
 */
function inHost(text: string, cwd: string, body: string): unknown {
  const file = join(testTempDir("helpdesk-shim-"), "provider.js");
  writeFileSync(file, text);
  const script = `
    const { readFileSync } = require("node:fs");
    const { registerHooks, createRequire } = require("node:module");
    const fromPulumi = createRequire(${JSON.stringify(`${repoRoot}node_modules/@pulumi/pulumi/package.json`)});
    const requireFromString = fromPulumi("require-from-string");
    fromPulumi("./runtime"); // loaded by the host before any provider
    const loaded = [];
    registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context); loaded.push(resolved.url); return resolved; } });
    const settings = { "helpdesk:baseUrl": "http://127.0.0.1:9", "helpdesk:accessToken": "token-not-used", "helpdesk:maxRetries": "0" };
    const report = (value) => process.stdout.write(JSON.stringify(value));
    (async () => {
      const provider = requireFromString(readFileSync(${JSON.stringify(file)}, "utf8")).handler();
      const configuring = provider.configure({ config: { get: (key) => settings[key] } });
      ${body}
    })().catch((error) => { report({ uncaught: String(error && error.message) }); });`;
  const out = execFileSync(process.execPath, ["-e", script], { cwd, encoding: "utf8" });
  return JSON.parse(out);
}

describe("the serialized Webhook provider (__provider in state)", () => {
  const text = serializeProvider();

  it("is at most 1,000 bytes and captures nothing but the implementation's package path", () => {
    const bytes = Buffer.byteLength(text);
    console.log(`serialized __provider: ${bytes} bytes`);
    expect(bytes).toBeLessThanOrEqual(1000);
    expect(text).toContain('"pulumi-helpdesk/provider"');
    // Nothing of the implementation or its libraries, and no credential.
    expect(text).not.toMatch(/zod|undici|Bearer|accessToken|token-not-used/);
  });

  it("has check, diff, create and delete in place as soon as configure is called, bound to its config", () => {
    // A parallel operation gets the provider before configure's promise settles: the methods must already be real.
    const result = inHost(
      text,
      programDir,
      `
      const checked = provider.check({}, { event: "ticket_open", url: "https://hooks.example.test/a" });
      const unknown = provider.check({}, { event: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", url: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" });
      const creating = provider.create({ event: "ticket_opened", url: "https://hooks.example.test/a" }).then(() => "created", (e) => e.message);
      await configuring;
      report({ failures: (await checked).failures.map((f) => f.property), unknownFailures: (await unknown).failures, create: await creating });`,
    ) as { failures: string[]; unknownFailures: unknown[]; create: string };
    expect(result.failures).toEqual(["event"]);
    expect(result.unknownFailures).toEqual([]);
    // create read the config given to configure: it tried the configured base URL (nothing listens on port 9).
    expect(result.create).toContain("http://127.0.0.1:9");
    expect(result.create).not.toContain("token-not-used");
  });

  it("diff ignores a changed __provider (an upgrade is no change) and replaces on event or url", () => {
    const result = inHost(
      text,
      programDir,
      `
      await configuring;
      const olds = { __provider: "the shim of an older version", event: "ticket_opened", url: "https://hooks.example.test/a", state: "active" };
      const same = await provider.diff("wh_1", olds, { __provider: "this shim", event: "ticket_opened", url: "https://hooks.example.test/a" });
      const moved = await provider.diff("wh_1", olds, { __provider: "this shim", event: "ticket_opened", url: "https://hooks.example.test/b" });
      report({ same, moved });`,
    ) as { same: { changes: boolean }; moved: { changes: boolean; replaces: string[] } };
    expect(result.same.changes).toBe(false);
    expect(result.moved).toMatchObject({ changes: true, replaces: ["url"] });
  });

  it("loads neither undici, zod nor the OAuth client for configure, check and diff", () => {
    const loaded = inHost(
      text,
      programDir,
      `
      await configuring;
      await provider.check({}, { event: "ticket_opened", url: "https://hooks.example.test/a" });
      await provider.diff("wh_1", { event: "ticket_opened", url: "https://hooks.example.test/a" }, { event: "ticket_opened", url: "https://hooks.example.test/a" });
      report(loaded);`,
    ) as string[];
    expect(loaded.some((url) => url.endsWith("/dist/provider/dynamic/index.js"))).toBe(true);
    expect(
      loaded.filter((url) =>
        /\/node_modules\/(undici|zod|oauth4webapi|proper-lockfile)\/|\/dist\/(provider\/client|auth\/oauth|auth\/token-cache)\.js$/.test(
          url,
        ),
      ),
    ).toEqual([]);
  });

  it("fails every operation loudly when the implementation cannot be loaded: none is skipped as a success", () => {
    // Outside any project that has pulumi-helpdesk installed, the package path does not resolve.
    const result = inHost(
      text,
      testTempDir("helpdesk-no-package-"),
      `
      const outcome = (run) => { try { return Promise.resolve(run()).then(() => "succeeded", (e) => e.message); } catch (e) { return e.message; } };
      const configure = await outcome(() => configuring);
      report({
        configure,
        check: await outcome(() => provider.check({}, {})),
        diff: await outcome(() => provider.diff("wh_1", {}, {})),
        create: await outcome(() => provider.create({})),
        delete: await outcome(() => provider.delete("wh_1", {})),
      });`,
    ) as Record<string, string>;
    expect(result.configure).toContain("pulumi-helpdesk/provider");
    for (const method of ["check", "diff", "create", "delete"]) {
      expect(result[method], method).toBe("pulumi-helpdesk/provider did not load: see the first error");
    }
  });
});
