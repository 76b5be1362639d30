/**
 * The native provider plugin `pulumi-resource-helpdesk` (`provider/native/main.ts`), started by {@link start}: run by
 * the launcher `plugin/pulumi-resource-helpdesk` as `node dist/bin/pulumi-resource-helpdesk.js <args>`.
 */
import { start } from "./start.js";

start(() => import("../provider/native/main.js"));
