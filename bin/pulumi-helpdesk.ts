#!/usr/bin/env node
/** The `pulumi-helpdesk` command (package.json "bin"): the CLI of `cli/main.ts`, started by {@link start}. */
import { start } from "./start.js";

start(() => import("../cli/main.js"));
