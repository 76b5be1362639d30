/**
 * Test support: the receiver kits' shared cases (receiver/cases.json), read as every kit's tests read them: the
 * tokens, each case's request (method, query with the tokens filled in, Content-Type, body bytes) and what it must
 * get (status, error code, field, or the delivery as a handler under test reports it).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../../scripts/lib/repo-root.ts";

/** A case's body, as receiver/cases.json describes it. */
interface BodySpec {
  body?: unknown;
  bodyText?: string;
  bodyBase64?: string;
  repeat?: Array<{ text: string; count: number }>;
  nest?: { key: string; depth: number };
  padTo?: number;
}

/** What a case must get. */
export interface Expectation {
  status: number;
  /** A refusal's code. */
  error?: string;
  /** An `invalid_record` refusal's field. */
  field?: string;
  /** An accepted delivery, as a handler under test reports it. */
  delivered?: DeliverySummary;
}

/** A delivery as a handler under test reports it (receiver/cases.json's `$comment`). */
export interface DeliverySummary {
  event: string;
  kind: string;
  tokenIndex: number;
  fields: Record<string, unknown>;
}

/** One case of receiver/cases.json. */
export interface Case extends BodySpec {
  name: string;
  method: string;
  query: string;
  contentType?: string;
  expect: Expectation;
}

/** receiver/cases.json. */
export interface CasesFile {
  tokens: Record<"A" | "B" | "C", string>;
  accepted: Array<"A" | "B" | "C">;
  path: string;
  cases: Case[];
}

/** The file's path. */
export const CASES_FILE = join(repoRoot, "receiver", "cases.json");

/** The cases file, parsed. */
export const casesFile = JSON.parse(readFileSync(CASES_FILE, "utf8")) as CasesFile;

/** The tokens a receiver under test accepts, in order (their indices are the cases' `tokenIndex`). */
export const acceptedTokens: string[] = casesFile.accepted.map((name) => casesFile.tokens[name]);

/** Every token of the cases, accepted or not: none may appear in any answer or output. */
export const allTokens: string[] = Object.values(casesFile.tokens);

/** A case's query, the tokens filled in. */
export function queryOf(test: Case): string {
  return test.query.replace(/\{([ABC])\}/g, (_, name: "A" | "B" | "C") => casesFile.tokens[name]);
}

/** A case's request target: the path and, when there is one, the query. */
export function targetOf(test: Case): string {
  const query = queryOf(test);
  return query === "" ? casesFile.path : `${casesFile.path}?${query}`;
}

/** Arrays nested `depth` deep: `[[...]]`. */
function nested(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

/** A case's body, as bytes (empty when it has none). */
export function bodyOf(test: Case): Uint8Array {
  let text: string | undefined;
  if (test.bodyBase64 !== undefined) return new Uint8Array(Buffer.from(test.bodyBase64, "base64"));
  if (test.repeat !== undefined) text = test.repeat.map((part) => part.text.repeat(part.count)).join("");
  else if (test.bodyText !== undefined) text = test.bodyText;
  else if (test.body !== undefined) {
    text = JSON.stringify(test.body);
    if (test.nest) text = `${text.slice(0, -1)},${JSON.stringify(test.nest.key)}:${nested(test.nest.depth)}}`;
  }
  if (text === undefined) return new Uint8Array(0);
  let bytes = new TextEncoder().encode(text);
  if (test.padTo !== undefined) {
    if (bytes.length > test.padTo) throw new Error(`${test.name}: the body is already over padTo`);
    bytes = new TextEncoder().encode(text + " ".repeat(test.padTo - bytes.length));
  }
  return bytes;
}
