/**
 * The package's entry `pulumi-helpdesk/records`: the delivery record schemas and their parser, whose home is
 * `./record-schemas.ts`, after the Node.js version guard (every library entry point runs it first).
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "./node-guard.js";

export * from "./record-schemas.js";
