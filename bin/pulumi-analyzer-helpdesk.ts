/**
 * The policy pack as a binary analyzer plugin `pulumi-analyzer-helpdesk` (`policy/analyzer.ts`), started by
 * {@link start}.
 */
import { start } from "./start.js";

start(() => import("../policy/analyzer.js"));
