/**
 * The emulator's two sides stay apart (emulator/README.md, Layout): everything the running emulator loads, that is
 * every module start.ts reaches, type-only imports included, is server side; the clients of the emulator
 * (the room emulator-client/: the inspection client, the headless sign-in and the OAuth client of auth/ it uses) are
 * not among them, and no module of emulator/ imports them. Both sides share the shapes of types.ts, which imports
 * nothing of the emulator.
 */
import { describe, expect, it } from "vitest";
import { reachedFrom } from "../support/dependencies.js";

describe("the emulator's layout", () => {
  it("the server side (start.ts and all it loads) imports no client of the emulator", async () => {
    const server = await reachedFrom("emulator/start.ts");
    expect(server).toContain("emulator/app.ts"); // the walk did follow the imports
    expect(server).toContain("emulator/store/database.ts");
    expect(server.filter((module) => /^emulator\/index\.ts$|^(emulator-client|auth|cli|provider)\//.test(module))).toEqual([]);
  });

  it("the emulator's public entry (and so every module of emulator/) imports no client of it", async () => {
    const entry = await reachedFrom("emulator/index.ts");
    expect(entry).toContain("emulator/start.ts");
    expect(entry.filter((module) => /^(emulator-client|auth|cli|provider)\//.test(module))).toEqual([]);
  });

  it("types.ts, which both sides share, imports nothing of the emulator", async () => {
    expect((await reachedFrom("emulator/types.ts")).filter((module) => module.startsWith("emulator/"))).toEqual(["emulator/types.ts"]);
  });
});
