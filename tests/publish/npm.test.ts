/**
 * `npm run publish -- --only npm` against a Verdaccio that requires authentication (tests/support/registries.ts), run
 * from a checkout as the publish job has it (no node_modules, no dist/), with small tarballs of the release's npm
 * packages (scripts/publish/packages.ts: the package, the TypeScript SDK, the receiver kit): the token in `NODE_AUTH_TOKEN` is what lets it publish, a run without it is refused in one line, a second
 * version with other bytes is refused in one line, and a prerelease goes to the dist-tag `next`, `latest` unmoved.
 * (The release's own tarballs, installed by name: registries.test.ts.)
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageVersion } from "../../kernel/package-version.js";
import { shown, waitFor } from "../../scripts/lib/processes.ts";
import { releaseNpmPackages } from "../../scripts/publish/packages.ts";
import {
  npmTarball,
  publishCheckout,
  runPublish,
  smallRelease,
  startVerdaccio,
  type Verdaccio,
} from "../support/registries.js";

const VERSION = packageVersion();
const RC = `${VERSION}-rc.1`;
const PACKAGES = releaseNpmPackages().map((pkg) => pkg.name);

let work: string;
let verdaccio: Verdaccio;
let checkout: string;
let rcCheckout: string;

/** The publish job's environment: a Node.js and npm on PATH, a HOME of the test's, the local registry. */
function env(token?: string): NodeJS.ProcessEnv {
  return {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: join(work, "home"),
    HELPDESK_CACHE: join(work, "empty-cache"),
    npm_config_registry: verdaccio.url,
    npm_config_update_notifier: "false",
    ...(token ? { NODE_AUTH_TOKEN: token } : {}),
  };
}

/** The registry's dist-tags of a package. */
function distTags(name: string): Record<string, string> {
  return JSON.parse(
    execFileSync("npm", ["view", name, "dist-tags", "--json"], {
      cwd: work,
      encoding: "utf8",
      env: { ...env(), PATH: process.env.PATH },
    }),
  ) as Record<string, string>;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-publish-npm-"));
  verdaccio = await startVerdaccio(join(work, "verdaccio"), undefined, PACKAGES);
  checkout = publishCheckout(join(work, "checkout"));
  rcCheckout = publishCheckout(join(work, "rc-checkout"), RC);
}, 120_000);

afterAll(async () => {
  await verdaccio?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("npm run publish --only npm, to a registry that requires authentication", () => {
  it("without NODE_AUTH_TOKEN: refused in one line naming the target, the registry and what is missing", async () => {
    const release = smallRelease(join(work, "release-no-token"), VERSION, PACKAGES);
    const ran = await runPublish(checkout, ["--only", "npm", "--release", release], env());
    expect(ran.code, shown("publish without a token", ran)).toBe(1);
    expect(ran.stderr).toBe(
      `error: npm: ${verdaccio.url} refused pulumi-helpdesk@${VERSION}: ENEEDAUTH need auth This command requires you to be logged in to ${verdaccio.url} (a registry never replaces a published version, and needs a token: NODE_AUTH_TOKEN or npm login)\n`,
    );
    expect(verdaccio.log()).not.toMatch(/req: 'PUT \/pulumi-helpdesk'/);
  });

  it("a release without one of the packages: refused before anything is asked, naming each package it must hold", async () => {
    const release = smallRelease(join(work, "release-incomplete"), VERSION, PACKAGES.slice(0, -1));
    const ran = await runPublish(checkout, ["--only", "npm", "--release", release], env(verdaccio.token));
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toContain(`error: npm: ${release} holds ${PACKAGES.length - 1} npm tarballs (`);
    const wanted = releaseNpmPackages()
      .map((pkg) => `${pkg.what} ${pkg.name}`)
      .join(", ");
    expect(ran.stderr).toContain(`; the release has one of each of ${wanted}: run npm run release\n`);
    expect(verdaccio.log()).not.toMatch(/req: 'PUT \/pulumi-helpdesk'/);
  });

  it("with a token the registry does not know: refused before anything is sent (npm whoami), in one line", async () => {
    const release = smallRelease(join(work, "release-wrong-token"), VERSION, PACKAGES);
    const ran = await runPublish(checkout, ["--only", "npm", "--release", release], env("not-a-token-of-verdaccio"));
    expect(ran.code, shown("publish with a wrong token", ran)).toBe(1);
    expect(ran.stderr).toMatch(
      new RegExp(
        `^error: npm: ${verdaccio.url.replace(/[.]/g, "\\.")} refused the token in NODE_AUTH_TOKEN \\(npm whoami: E[A-Z0-9]+ [^\\n]+\\); nothing was sent\\n$`,
      ),
    );
    expect(ran.stdout).toBe("");
    await waitFor("Verdaccio's log of the whoami", () => /req: 'GET \/-\/whoami'/.test(verdaccio.log()), 10_000);
    expect(verdaccio.log()).not.toMatch(/req: 'PUT \/pulumi-helpdesk'/);
  });

  it("with the user's token in NODE_AUTH_TOKEN: publishes the three packages under latest", async () => {
    const release = smallRelease(join(work, "release"), VERSION, PACKAGES);
    const ran = await runPublish(checkout, ["--only", "npm", "--release", release], env(verdaccio.token));
    expect(ran.code, shown("publish", ran)).toBe(0);
    expect(ran.stdout.trim().split("\n")).toEqual(
      PACKAGES.map((name) => `npm: ${name}@${VERSION} -> ${verdaccio.url}: published`),
    );
    expect(ran.stderr).toBe("");
    for (const name of PACKAGES) expect(distTags(name)).toEqual({ latest: VERSION });
  });

  it("the same version with other bytes: the registry's refusal in one line", async () => {
    const release = smallRelease(join(work, "release-changed"), VERSION);
    for (const name of PACKAGES) npmTarball(release, name, VERSION, "other bytes of the same version\n");
    const rebuilt = smallRelease(release, VERSION);
    const ran = await runPublish(checkout, ["--only", "npm", "--release", rebuilt], env(verdaccio.token));
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      `error: npm: ${verdaccio.url} refused pulumi-helpdesk@${VERSION}: You cannot publish over the previously published versions: ${VERSION}. (a registry never replaces a published version, and needs a token: NODE_AUTH_TOKEN or npm login)\n`,
    );
  });

  it("a prerelease goes to the dist-tag next; latest stays the release", async () => {
    const release = smallRelease(join(work, "release-rc"), RC, PACKAGES);
    const ran = await runPublish(rcCheckout, ["--only", "npm", "--release", release], env(verdaccio.token));
    expect(ran.code, shown("publish of the prerelease", ran)).toBe(0);
    expect(ran.stdout.trim().split("\n")).toEqual(
      PACKAGES.map((name) => `npm: ${name}@${RC} -> ${verdaccio.url}: published`),
    );
    for (const name of PACKAGES) expect(distTags(name)).toEqual({ latest: VERSION, next: RC });
  });
});
