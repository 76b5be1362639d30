/**
 * What the TypeScript receiver kit (receiver/nodejs/) costs per delivery against the floor of any receiver of a JSON
 * body: `JSON.parse` of the same body alone (issue 44's goal: verify + parse at most 2 times that floor).
 *
 * The deliveries are the shared cases' accepted ones (receiver/cases.json: one of each record kind, each with its
 * url's token and event). Measured in the same run, in interleaved rounds, each a loop over every delivery:
 *
 * - `JSON.parse`: the floor;
 * - `verify + parse`: `verifyDelivery` (the token matched in constant time against the accepted ones) and
 *   `parseDelivery` of the parsed body (its event's record schema, zod);
 * - `receiveDelivery`: what a handler does with a delivery whose body it has read: method, token, size, content type,
 *   JSON and record checks (it also takes the accepted tokens on each call, checked once for the same tokens).
 *
 * Printed as the median of the rounds' nanoseconds per delivery, with ratios to the floor; never asserted. Run alone:
 * `node bench/receiver.ts` (after `npm run build`); `npm run bench` runs it and writes bench-results/receiver.json.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
// The built kit (bench/run.sh builds it): type stripping resolves no `.js` import of a `.ts` source.
import { required } from "../dist/kernel/required.js";
import { parseDelivery, receiveDelivery, verifyDelivery } from "../dist/receiver/nodejs/index.js";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { median } from "./results.ts";

/** Rounds of each measure, interleaved (an odd count: the median is one of them). */
const ROUNDS = 11;

/** Deliveries per round: every accepted case, repeated. */
const PER_ROUND = 20_000;

/** One accepted delivery of receiver/cases.json, as a receiver gets it. */
interface Delivery {
  requestUrl: string;
  body: string;
}

/** The fields of receiver/cases.json this benchmark reads. */
interface Cases {
  tokens: Record<string, string>;
  accepted: string[];
  path: string;
  cases: { method: string; query: string; contentType?: string; body?: unknown; expect: { status: number } }[];
}

/** The accepted POSTs of the shared cases, their `{A}`-style token names replaced by the tokens. */
function deliveries(root: string): { deliveries: Delivery[]; tokens: string[] } {
  const cases = JSON.parse(readFileSync(join(root, "receiver", "cases.json"), "utf8")) as Cases;
  const token = (name: string): string => cases.tokens[name] ?? "";
  const accepted = cases.cases.filter(
    (c) => c.expect.status === 204 && c.body !== undefined && c.contentType === "application/json",
  );
  return {
    tokens: cases.accepted.map(token),
    deliveries: accepted.map((c) => ({
      requestUrl: `${cases.path}?${c.query.replace(/\{(\w+)\}/g, (_, name: string) => token(name))}`,
      body: JSON.stringify(c.body),
    })),
  };
}

/** One measure's result: the median nanoseconds per delivery, and its ratio to the floor's. */
export interface ReceiverMeasure {
  name: string;
  nsPerDelivery: number;
  ratio: number;
}

/**
 * Measures the kit against `JSON.parse` and prints the table.
 *
 * @param root the repository root (the build in `dist/`, the cases in `receiver/`)
 * @returns one row per measure, the floor first
 * @throws Error when a delivery of the cases is refused (the benchmark would measure refusals)
 */
export function measureReceiver(root: string): ReceiverMeasure[] {
  const { deliveries: list, tokens } = deliveries(root);
  for (const d of list) {
    const reception = receiveDelivery({ method: "POST", contentType: "application/json", tokens, ...d });
    if (reception.status !== 204) throw new Error(`a case's delivery was refused with ${reception.status}`);
  }
  let sink = 0;
  const measures: [string, (d: Delivery) => void][] = [
    [
      "JSON.parse (floor)",
      (d) => {
        sink += JSON.parse(d.body) === null ? 0 : 1;
      },
    ],
    [
      "verify + parse",
      (d) => {
        const verified = verifyDelivery({ requestUrl: d.requestUrl, tokens });
        if (verified.verified && verified.event !== undefined)
          sink += parseDelivery(verified.event, JSON.parse(d.body)).kind.length;
      },
    ],
    [
      "receiveDelivery",
      (d) => {
        sink += receiveDelivery({ method: "POST", contentType: "application/json", tokens, ...d }).status;
      },
    ],
  ];
  const samples = new Map<string, number[]>(measures.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with another measure, so that none always runs first on a cold cache.
    for (let k = 0; k < measures.length; k++) {
      const [name, measure] = required(measures[(round + k) % measures.length], "a measure");
      const started = process.hrtime.bigint();
      for (let i = 0; i < PER_ROUND; i++) measure(required(list[i % list.length], "a delivery"));
      samples.get(name)?.push(Number(process.hrtime.bigint() - started) / PER_ROUND);
    }
  }
  const floor = median(samples.get("JSON.parse (floor)") ?? []);
  const rows = measures.map(([name]) => {
    const ns = median(samples.get(name) ?? []);
    return { name, nsPerDelivery: ns, ratio: ns / floor };
  });
  console.log(
    `\nthe TypeScript receiver kit per delivery (${list.length} deliveries of receiver/cases.json, ${ROUNDS} rounds of ${PER_ROUND}, interleaved; checksum ${sink % 10})`,
  );
  console.log(`  ${"".padEnd(28)}${"ns".padStart(8)}${"/floor".padStart(9)}`);
  for (const row of rows)
    console.log(
      `  ${row.name.padEnd(28)}${row.nsPerDelivery.toFixed(0).padStart(8)}${row.ratio.toFixed(2).padStart(9)}`,
    );
  console.log("  goal (issue 44): verify + parse <= 2.00 x floor");
  return rows;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) measureReceiver(repoRoot);
