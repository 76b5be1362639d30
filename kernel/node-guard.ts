/**
 * Side-effect module: stops on an unsupported Node.js before any dependency loads. Imported FIRST by every library
 * entry point (`pulumi-helpdesk`, `pulumi-helpdesk/provider`, `pulumi-helpdesk/emulator`, `pulumi-helpdesk/records`):
 * ES modules evaluate their imports in order, so this runs before undici, zod, Hono or `@pulumi/pulumi` are evaluated.
 *
 * @throws {UnsupportedNodeError} on a Node.js the package does not support (see `node-support.ts`)
 */
import { assertSupportedNode } from "./node-support.js";

assertSupportedNode();
