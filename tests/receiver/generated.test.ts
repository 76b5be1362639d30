/**
 * The receiver kits' generated files (scripts/receiver/generate.ts) are what the generator writes from their homes
 * today: the Python and Go records from kernel/record-schemas.ts through its JSON Schema, the events, the delivery
 * token's rule, the answers, pyproject.toml and go.mod. A stale one fails here, naming the command that rewrites it.
 * And the generator stops, naming it, on a schema construct the kits do not express.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as token from "../../kernel/delivery-token.js";
import * as events from "../../kernel/events.js";
import * as names from "../../kernel/names.js";
import { packageVersion } from "../../kernel/package-version.js";
import * as records from "../../kernel/record-schemas.js";
import * as refusals from "../../receiver/nodejs/refusals.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import {
  generatedFiles,
  type ReceiverSources,
  receiverFiles,
  recordClasses,
  tokenCharacters,
} from "../../scripts/receiver/generate.ts";

const sources: ReceiverSources = {
  events,
  records,
  token,
  names,
  refusals,
  toJSONSchema: z.toJSONSchema as ReceiverSources["toJSONSchema"],
  version: packageVersion(),
};

describe("the receiver kits' generated files", () => {
  it("are what scripts/receiver/generate.ts writes from their homes", () => {
    const files = receiverFiles(sources);
    expect(Object.keys(files).sort()).toEqual(Object.values(generatedFiles(names)).sort());
    for (const [file, text] of Object.entries(files))
      expect(
        readFileSync(join(repoRoot, file), "utf8"),
        `${file} is stale: run \`node scripts/receiver/generate.ts\``,
      ).toBe(text);
  });

  it("state the homes' values: every event and its record, the token's parameters and characters, every refusal", () => {
    const files = receiverFiles(sources);
    const python = files[generatedFiles(names).pythonContract] ?? "";
    const go = files[generatedFiles(names).goContract] ?? "";
    for (const event of events.EVENTS) {
      expect(python).toContain(`"${event}": "${records.EVENT_RECORD[event]}",`);
      expect(go).toContain(`= "${event}"`);
    }
    for (const code of refusals.REFUSAL_CODES)
      expect(python).toContain(`"${code}": (${refusals.REFUSALS[code].status}, `);
    expect(tokenCharacters(token)).toBe("-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~");
    expect(python).toContain(`DELIVERY_TOKEN_PARAM = "${token.DELIVERY_TOKEN_PARAM}"`);
    expect(go).toContain(`const MaxTokenLength = ${token.MAX_TOKEN_LENGTH}`);
  });

  it("name each record's class after its kind, the links entries Link, and nested objects after their parent", () => {
    const classes = recordClasses(sources);
    expect(classes.map((model) => model.name)).toEqual([
      "Link",
      "TicketLinks",
      "Ticket",
      "CustomerLinks",
      "Customer",
      "MessageLinks",
      "Message",
      "AgentLinks",
      "Agent",
    ]);
    expect(classes.find((model) => model.name === "Ticket")?.fields.map((field) => field.key)).toEqual(
      Object.keys(records.Ticket.shape),
    );
  });

  it("stop, naming it, on a construct the kits do not express", () => {
    const withSchema = (schema: z.ZodType): ReceiverSources => ({
      ...sources,
      records: { ...records, RECORD_SCHEMAS: { ...records.RECORD_SCHEMAS, agent: schema } } as typeof records,
    });
    expect(() => recordClasses(withSchema(z.looseObject({ email: z.string().optional() })))).toThrow(
      /^Agent\.email: an optional key/,
    );
    expect(() => recordClasses(withSchema(z.looseObject({ tags: z.array(z.string()) })))).toThrow(
      /^Agent\.tags: the type array/,
    );
    expect(() => recordClasses(withSchema(z.object({ email: z.string() })))).toThrow(
      /^Agent: an object that is not open/,
    );
    expect(() => recordClasses(withSchema(z.looseObject({ state: z.enum(["a", "b"]) })))).toThrow(
      /^Agent\.state: string with enum/,
    );
  });
});
