/**
 * scripts/publish/prerelease.ts, the home of "is this version a prerelease and what is it called on each registry",
 * and the redaction every target prints through (scripts/publish/common.ts): unit tests, and the CLI form the
 * release workflow's scripts call.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PYTHON_PACKAGE, RECEIVER_PYTHON_PACKAGE } from "../../kernel/names.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { redactText, redactUrl } from "../../scripts/publish/common.ts";
import { npmRefusal } from "../../scripts/publish/npm.ts";
import { goModuleTag, releasePythonFiles } from "../../scripts/publish/packages.ts";
import {
  githubReleaseFlags,
  goVersion,
  isPrerelease,
  npmDistTag,
  pep440Version,
  pythonArtefactNamesOf,
} from "../../scripts/publish/prerelease.ts";
import { twineRefusal } from "../../scripts/publish/pypi.ts";
import { pythonArtefactNames } from "../../scripts/release/python.ts";

describe("a version on each registry", () => {
  it("a release: npm latest, the same PEP 440 version, a GitHub release GitHub may mark latest, Go v<version>", () => {
    expect(isPrerelease("0.4.0")).toBe(false);
    expect(npmDistTag("0.4.0")).toBe("latest");
    expect(pep440Version("0.4.0")).toBe("0.4.0");
    expect(githubReleaseFlags("0.4.0")).toEqual([]);
    expect(goVersion("0.4.0")).toBe("v0.4.0");
    expect(goModuleTag("sdk/go", "0.4.0")).toBe("sdk/go/v0.4.0");
    expect(goModuleTag("receiver/go", "0.4.0")).toBe("receiver/go/v0.4.0");
  });

  it("a prerelease: npm next, a PEP 440 pre-release (as Pulumi's Python generator writes it), a GitHub prerelease not latest, a Go pre-release version", () => {
    expect(isPrerelease("0.4.0-rc.1")).toBe(true);
    expect(npmDistTag("0.4.0-rc.1")).toBe("next");
    // Measured: helpdesk-codegen --version <v> writes pyproject.toml's version as these.
    expect(
      ["0.4.0-rc.1", "0.4.0-rc.10", "0.4.0-alpha.2", "0.4.0-beta.3", "1.0.0-rc.0"].map((version) =>
        pep440Version(version),
      ),
    ).toEqual(["0.4.0rc1", "0.4.0rc10", "0.4.0a2", "0.4.0b3", "1.0.0rc0"]);
    expect(githubReleaseFlags("0.4.0-rc.1")).toEqual(["--prerelease", "--latest=false"]);
    expect(goVersion("0.4.0-rc.1")).toBe("v0.4.0-rc.1");
    expect(goModuleTag("sdk/go", "0.4.0-rc.1")).toBe("sdk/go/v0.4.0-rc.1");
    expect(goModuleTag("receiver/go", "0.4.0-rc.1")).toBe("receiver/go/v0.4.0-rc.1");
  });

  it("the Python SDK's wheel and sdist of a prerelease carry the PEP 440 version, for the release build and the publish alike", () => {
    const expected = {
      wheel: `${PYTHON_PACKAGE}-0.4.0rc1-py3-none-any.whl`,
      sdist: `${PYTHON_PACKAGE}-0.4.0rc1.tar.gz`,
    };
    expect(pythonArtefactNamesOf(PYTHON_PACKAGE, "0.4.0-rc.1")).toEqual(expected);
    expect(pythonArtefactNames("0.4.0-rc.1")).toEqual(expected);
    // The publish sends the receiver kit's too, by the same rule.
    expect(releasePythonFiles("0.4.0-rc.1")).toEqual([
      expected.wheel,
      expected.sdist,
      `${RECEIVER_PYTHON_PACKAGE}-0.4.0rc1-py3-none-any.whl`,
      `${RECEIVER_PYTHON_PACKAGE}-0.4.0rc1.tar.gz`,
    ]);
  });

  it("refuses a version no registry takes alike, naming the allowed forms", () => {
    for (const version of ["1.0.0-next.1", "1.0.0+build.5", "1.0", "v1.0.0", "01.0.0", "1.0.0-rc"])
      expect(() => npmDistTag(version)).toThrow(
        `${JSON.stringify(version)} is not a release version: MAJOR.MINOR.PATCH, optionally followed by one of -alpha.N, -beta.N, -rc.N`,
      );
  });

  it("node scripts/publish/prerelease.ts <version> prints the dist-tag, for the workflow's scripts", () => {
    const cli = join(repoRoot, "scripts", "publish", "prerelease.ts");
    expect(execFileSync(process.execPath, [cli, "0.4.0-rc.1"], { encoding: "utf8" })).toBe("next\n");
    expect(execFileSync(process.execPath, [cli, "0.4.0"], { encoding: "utf8" })).toBe("latest\n");
    const bad = spawnSync(process.execPath, [cli, "0.4.0-next.1"], { encoding: "utf8" });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^error: "0\.4\.0-next\.1" is not a release version: .*\n$/);
  });
});

describe("credentials are never printed", () => {
  it("a URL's userinfo and a secret query parameter become ***", () => {
    expect(redactUrl("https://__token__:pypi-AgEIcHlwaS5vcmc@upload.example/legacy/")).toBe(
      "https://***@upload.example/legacy/",
    );
    expect(redactUrl("https://x-access-token:ghs_abc@127.0.0.1/o/r.git")).toBe("https://***@127.0.0.1/o/r.git");
    expect(redactUrl("https://ghp_token@127.0.0.1/o/r.git")).toBe("https://***@127.0.0.1/o/r.git");
    expect(redactUrl("http://127.0.0.1/simple/?token=abc&page=2&X-Amz-Signature=def")).toBe(
      "http://127.0.0.1/simple/?token=***&page=2&X-Amz-Signature=***",
    );
    expect(redactUrl("git@127.0.0.1:o/r.git")).toBe("git@127.0.0.1:o/r.git");
    expect(redactUrl("http://127.0.0.1:4873/")).toBe("http://127.0.0.1:4873/");
  });

  it("tool output: every URL in it, and the values of the secret variables set", () => {
    const env = { TWINE_PASSWORD: "hunter22", NODE_AUTH_TOKEN: "npm_abcdef" };
    expect(
      redactText(
        "fatal: could not read from 'https://u:p@127.0.0.1/r.git'\nauth hunter22 and npm_abcdef in 'http://a@b/'",
        env,
      ),
    ).toBe("fatal: could not read from 'https://***@127.0.0.1/r.git'\nauth *** and *** in 'http://***@b/'");
  });
});

describe("a registry's refusal in one line", () => {
  it("npm: the error code and npm's first line of reason, without its advice", () => {
    const stderr = [
      "npm notice Publishing to http://127.0.0.1:4873/ with tag latest and default access",
      "npm error code E403",
      "npm error 403 403 Forbidden - PUT http://127.0.0.1:4873/pulumi-helpdesk - You cannot publish over the previously published versions: 0.3.0.",
      "npm error 403 In most cases, you or one of your dependencies are requesting",
      "npm error 403 a package version that is forbidden by your security policy, or",
      "npm error A complete log of this run can be found in: /tmp/x.log",
    ].join("\n");
    expect(npmRefusal({ code: 1, stdout: "", stderr })).toBe(
      "E403 403 Forbidden - PUT http://127.0.0.1:4873/pulumi-helpdesk - You cannot publish over the previously published versions: 0.3.0.",
    );
  });

  it("twine: the status and the index's message out of its coloured HTML (pypiserver's answer, as twine --verbose prints it)", () => {
    const stdout = [
      "Uploading pulumi_helpdesk-0.3.0-py3-none-any.whl",
      "\u001b[32mINFO    \u001b[0m Response from http://127.0.0.1:8080/:",
      "         400 Bad Request",
      '\u001b[32mINFO    \u001b[0m <!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">',
      "         <html>",
      "             <head>",
      "                 <title>Error: 400 Bad Request</title>",
      "             </head>",
      "             <body>",
      "                 <h1>Error: 400 Bad Request</h1>",
      "                 <p>Sorry, the requested URL <tt>&#039;http://127.0.0.1:8080/&#039;</tt>",
      "                    caused an error:</p>",
      "                 <pre>Package &#039;pulumi_helpdesk-0.3.0-py3-none-any.whl&#039; already exists!",
      "You may start server with `--overwrite` option.",
      "</pre>",
      "             </body>",
      "         </html>",
    ].join("\n");
    const stderr =
      "\u001b[31mERROR   \u001b[0m HTTPError: 400 Bad Request from http://127.0.0.1:8080/\n         Bad Request\n";
    expect(twineRefusal({ code: 1, stdout, stderr })).toBe(
      "400 Bad Request: Package 'pulumi_helpdesk-0.3.0-py3-none-any.whl' already exists! You may start server with `--overwrite` option.",
    );
  });
});
