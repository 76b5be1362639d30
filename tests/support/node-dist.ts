/**
 * Test support: a stand-in of Node.js's dist on 127.0.0.1 for scripts/release/node-official.sh, laid out as Node.js's
 * own (`<mirror>/v<version>/SHASUMS256.txt`, its detached signature `SHASUMS256.txt.sig`, `node-v<version>-<platform>.tar.gz`,
 * `win-x64/node.exe`), signed by a key made in a GNUPGHOME of its own. The verifier reads it with
 * `HELPDESK_NODE_DIST_URL=<url><mirror>` and trusts its key with `HELPDESK_NODE_RELEASE_KEYS=<releaseKeys>`.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { required } from "../../kernel/required.js";
import { type LocalServer, serveFolder } from "./registries.js";

/** A running stand-in of Node.js's dist. */
export interface NodeDist {
  /** the server's base URL, ending in `/`; a mirror's URL is this and its name */
  url: string;
  /** a folder holding only the releaser's armored public key: the release keys' override */
  releaseKeys: string;
  /** the releaser's primary key fingerprint (40 upper-case hex digits) */
  releaserFpr: string;
  /** the fingerprint of another key of the same GNUPGHOME, not among {@link releaseKeys} */
  otherFpr: string;
  /**
   * Publishes a release in a mirror: each platform's file (`node-v<version>-<platform>.tar.gz` holding
   * `node-v<version>-<platform>/bin/node` and a README.md; for win-x64 `win-x64/node.exe`), SHASUMS256.txt listing them
   * (or the names in `listed`: a listed name with no file gets a line of zeros) and its signature by `signer`.
   *
   * @param mirror the mirror's name (a folder of the server)
   * @param version e.g. `"24.21.0"`
   * @param builds each platform (Node.js's name, e.g. `darwin-arm64`) and the bytes of its binary
   * @param options `signer`: the key that signs (default the releaser); `listed`: the file names SHASUMS256.txt lists
   * @returns the release's folder (`<mirror>/v<version>`)
   */
  publish(
    mirror: string,
    version: string,
    builds: Record<string, Buffer>,
    options?: { signer?: string; listed?: string[] },
  ): string;
  /** Stops the server and the GNUPGHOME's agent (the folder given to {@link startNodeDist} is the caller's). */
  close(): Promise<void>;
}

/** The SHA-256 of a file (a path) or of bytes, lower-case hex. */
export function sha256(data: Buffer | string): string {
  return createHash("sha256")
    .update(typeof data === "string" ? readFileSync(data) : data)
    .digest("hex");
}

/** The file Node.js publishes for a platform, as SHASUMS256.txt names it. */
export function officialFile(version: string, platform: string): string {
  return platform === "win-x64" ? "win-x64/node.exe" : `node-v${version}-${platform}.tar.gz`;
}

/**
 * Makes the keys and starts the server.
 *
 * @param dir an empty folder of the caller's (the GNUPGHOME, the keys, the dist), which the caller removes
 * @throws Error when gpg cannot make a key or the server cannot listen
 */
export async function startNodeDist(dir: string): Promise<NodeDist> {
  const gnupg = join(dir, "gnupg");
  mkdirSync(gnupg, { mode: 0o700 });
  const gpgEnv = { ...process.env, GNUPGHOME: gnupg };
  const gpg = (args: string[]): string =>
    execFileSync("gpg", ["--batch", "--quiet", ...args], { env: gpgEnv, encoding: "utf8" });
  const makeKey = (uid: string): string => {
    gpg(["--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", "never"]);
    return required(
      /^fpr:(?::*)([0-9A-F]{40}):/m.exec(gpg(["--with-colons", "--list-keys", uid]))?.[1],
      `the fingerprint of the new key ${uid}`,
    );
  };
  const releaserFpr = makeKey("Test Releaser <releaser@example.invalid>");
  const otherFpr = makeKey("Someone Else <other@example.invalid>");
  const releaseKeys = join(dir, "release-keys");
  mkdirSync(releaseKeys);
  writeFileSync(join(releaseKeys, `${releaserFpr}.asc`), gpg(["--armor", "--export", releaserFpr]));
  const dist = join(dir, "dist");
  mkdirSync(dist);
  const server: LocalServer = await serveFolder(dist);
  return {
    url: server.url,
    releaseKeys,
    releaserFpr,
    otherFpr,
    publish(mirror, version, builds, options = {}) {
      const release = join(dist, mirror, `v${version}`);
      mkdirSync(release, { recursive: true });
      const sums = new Map<string, string>();
      for (const [platform, binary] of Object.entries(builds)) {
        const file = officialFile(version, platform);
        if (platform === "win-x64") {
          mkdirSync(join(release, "win-x64"), { recursive: true });
          writeFileSync(join(release, file), binary);
        } else {
          const top = `node-v${version}-${platform}`;
          const content = join(dir, "content", mirror, top);
          mkdirSync(join(content, "bin"), { recursive: true });
          writeFileSync(join(content, "bin", "node"), binary, { mode: 0o755 });
          writeFileSync(join(content, "README.md"), "Node.js\n");
          execFileSync("tar", ["-czf", join(release, file), "-C", join(content, ".."), top]);
        }
        sums.set(file, sha256(join(release, file)));
      }
      const listed = options.listed ?? [...sums.keys()];
      const shasums = join(release, "SHASUMS256.txt");
      writeFileSync(shasums, listed.map((file) => `${sums.get(file) ?? "0".repeat(64)}  ${file}\n`).join(""));
      const signer = options.signer ?? releaserFpr;
      gpg(["--local-user", signer, "--detach-sign", "--output", `${shasums}.sig`, shasums]);
      return release;
    },
    async close() {
      await server.close();
      execFileSync("gpgconf", ["--kill", "all"], { env: gpgEnv });
    },
  };
}
