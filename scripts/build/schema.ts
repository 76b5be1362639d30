/**
 * Writes `dist/schema.json`: the Pulumi package schema of the native provider `helpdesk`, as its plugin's `GetSchema`
 * serves it (built by `provider/native/schema.ts` from the project's definitions). SDK generators read this file.
 *
 * Run by scripts/build.sh after tsc (it imports the compiled module); Node runs this file directly (type stripping).
 */
import { writeFileSync } from "node:fs";

const dist = new URL("../../dist/", import.meta.url);
const { schemaJson } = (await import(new URL("provider/native/schema.js", dist).href)) as { schemaJson: () => string };
writeFileSync(new URL("schema.json", dist), schemaJson());
console.error("schema: dist/schema.json");
