/**
 * The Pulumi Registry pages (docs/_index.md, docs/installation-configuration.md) are what scripts/docs/registry-pages.ts
 * writes from the sources now: a change to a setting's row, a name, the schema or an example fails here until the
 * pages are regenerated. And they say what the Registry reads, and every setting.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as config from "../../kernel/config.js";
import * as names from "../../kernel/names.js";
import { required } from "../../kernel/required.ts";
import * as settings from "../../kernel/settings.js";
import { goProgramOf, javaCoordinatesOf, type PageSources, registryPages } from "../../scripts/docs/registry-pages.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { pageSources } from "../support/doc-sources.js";

const sources: PageSources = pageSources();
const pages = registryPages(sources);
const committed = (file: string): string => readFileSync(join(repoRoot, "docs", file), "utf8");

describe("the registry pages", () => {
  it("are what scripts/docs/registry-pages.ts writes from the sources (else: npm run build && node scripts/docs/registry-pages.ts)", () => {
    for (const [file, text] of Object.entries(pages)) expect(committed(file), `docs/${file} is stale`).toBe(text);
  });

  it("change when a setting's row changes", () => {
    const changed = { ...settings.SETTINGS, requestTimeout: { ...settings.SETTINGS.requestTimeout, default: 31 } };
    const edited = registryPages({
      ...sources,
      settings: { ...settings, SETTINGS: changed as unknown as typeof settings.SETTINGS },
    });
    expect(edited["installation-configuration.md"]).not.toBe(pages["installation-configuration.md"]);
    expect(edited["installation-configuration.md"]).toContain("| 31 seconds |");
  });

  it("carry the front matter the Registry reads, titled after the schema's displayName", () => {
    const { displayName } = sources.schema;
    expect(pages["_index.md"]).toMatch(
      new RegExp(`^---\\n(#.*\\n)*title: "${displayName}"\\nmeta_desc: ".+"\\nlayout: package\\n---\\n`),
    );
    expect(pages["installation-configuration.md"]).toMatch(
      new RegExp(
        `^---\\n(#.*\\n)*title: "${displayName} Installation & Configuration"\\nmeta_desc: ".+"\\nlayout: package\\n---\\n`,
      ),
    );
  });

  it("list every setting with its config key, environment variable, secretness and default", () => {
    const page = pages["installation-configuration.md"];
    for (const name of settings.SETTING_NAMES) {
      const spec: settings.SettingSpec = settings.SETTINGS[name];
      const line = required(
        page.split("\n").find((row) => row.startsWith(`| \`${config.CONFIG_KEYS[name]}\` |`)),
        `the row of ${name}`,
      );
      const [, env, secret, byDefault] = line.split(" | ");
      expect(env, name).toBe(spec.env ? `\`${spec.env}\`` : "none");
      expect(secret, name).toBe(spec.secret ? "yes" : "no");
      expect(byDefault?.startsWith(spec.default === undefined ? "none" : String(spec.default)), name).toBe(true);
    }
  });

  it("show each language's example program as it is in examples/", () => {
    const index = pages["_index.md"];
    for (const file of [
      "examples/typescript/index.ts",
      "examples/python/__main__.py",
      "examples/java/src/main/java/helpdeskexample/App.java",
      "examples/yaml/Pulumi.yaml",
    ]) {
      expect(index, file).toContain(readFileSync(join(repoRoot, file), "utf8").trimEnd());
    }
    expect(index).toContain(goProgramOf(readFileSync(join(repoRoot, "examples/go/main.go"), "utf8")));
  });

  it("take the Go example's program function, and the Java SDK's coordinates from its pom, or say why not", () => {
    expect(
      goProgramOf(
        "package main\n\n// program declares.\n// More.\nfunc program(ctx *pulumi.Context) error {\n\treturn nil\n}\n\nfunc main() {}\n",
      ),
    ).toBe("// program declares.\n// More.\nfunc program(ctx *pulumi.Context) error {\n\treturn nil\n}");
    expect(() => goProgramOf("package main\n")).toThrow(/no top-level `func program/);
    expect(javaCoordinatesOf(readFileSync(join(repoRoot, "sdk/java/pom.xml"), "utf8"))).toBe(names.mavenCoordinates());
    expect(() => javaCoordinatesOf("<project></project>")).toThrow(/run scripts\/sdk\/generate-java.sh/);
  });
});
