/**
 * A separate OS process that refreshes one token lineage `count` times through the built code (dist/auth/lineage.js,
 * so run `bash scripts/build.sh` first), for the cross-process tests of tests/auth/concurrency.test.ts.
 *
 * stdin: JSON `{ dir, lineage, count, mode }`; the tokens travel on stdin, never on a command line.
 * - `mode: "always"`: every iteration spends the lineage's newest refresh token (under the lock);
 * - `mode: "when-rejected"`: every iteration takes the access token it holds as rejected (as after a 401) and renews
 *   only when the lineage's access token is still that one (another process may have renewed it meanwhile).
 * stdout: one JSON line per iteration, `{ i, ok, renewed }` or `{ i, ok: false, code, message }`. Never a token.
 */
import { readFileSync } from "node:fs";

const { readLineage, refreshLineage } = await import(new URL("../../../dist/auth/lineage.js", import.meta.url).href);
const { dir, lineage, count, mode } = JSON.parse(readFileSync(0, "utf8"));
lineage.client.baseUrl = new URL(lineage.client.baseUrl); // a URL travels as its text in JSON

for (let i = 0; i < count; i++) {
  let stillNeeded = () => true;
  if (mode === "when-rejected") {
    const held = readLineage(lineage, dir).tokens.accessToken;
    stillNeeded = (newest) => newest.accessToken === held;
  }
  try {
    const { renewed } = await refreshLineage(lineage, { stillNeeded, dir });
    process.stdout.write(`${JSON.stringify({ i, ok: true, renewed })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ i, ok: false, code: error.code, message: error.message })}\n`);
  }
}
