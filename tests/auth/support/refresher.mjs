/**
 * A separate OS process that refreshes one OAuth grant `count` times through the built code (dist/auth/grant.js, so
 * run `bash scripts/build.sh` first), for the cross-process tests of tests/auth/concurrency.test.ts.
 *
 * stdin: JSON `{ dir, config, count, mode }` (`config`: the stack config of the grant, as `login` writes it); the
 * tokens travel on stdin, never on a command line.
 * - `mode: "always"`: every iteration spends the grant's newest refresh token: a refresh `requested` (spent while the
 *   newest refresh token is the one this process read first), repeated until this process did spend one, so each
 *   iteration is one real rotation raced against the other process's;
 * - `mode: "when-rejected"`: every iteration takes the access token it holds as rejected (as after a 401) and refreshes
 *   only when the grant's access token is still that one (another process may have refreshed it meanwhile).
 * stdout: one JSON line per iteration, `{ i, ok, refreshed }` or `{ i, ok: false, code, message }`. Never a token.
 */
import { readFileSync } from "node:fs";

const { Grant } = await import(new URL("../../../dist/auth/grant.js", import.meta.url).href);
const { dir, config, count, mode } = JSON.parse(readFileSync(0, "utf8"));

for (let i = 0; i < count; i++) {
  // A grant object per iteration: what this process knows comes from the cache, as in a new provider run.
  const grant = Grant.fromStackConfig(config, { env: {}, cacheDir: dir });
  try {
    let refreshed = false;
    if (mode === "when-rejected") {
      const held = grant.state().tokens.accessToken;
      ({ refreshed } = await grant.refresh({ because: "rejected", token: held }));
    } else {
      for (let attempt = 0; !refreshed && attempt < 1000; attempt++)
        ({ refreshed } = await Grant.fromStackConfig(config, { env: {}, cacheDir: dir }).refresh({
          because: "requested",
        }));
    }
    process.stdout.write(`${JSON.stringify({ i, ok: true, refreshed })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ i, ok: false, code: error.code, message: error.message })}\n`);
  }
}
