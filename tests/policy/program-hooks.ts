/**
 * The webhooks of the policy pack's end-to-end suites (tests/policy/*.test.ts), the same in every language: which
 * break which policy under {@link PACK_CONFIG}, which comply, and the parts of their urls no output may show.
 */
import { POLICY_NAMES } from "../../policy/policies.js";

/**
 * The `--policy-pack-config` of the suites: webhooks may go to hooks.example.com only; `webhook-has-delivery-token`
 * stays at its own level, advisory (none of these webhooks has a delivery token).
 */
export const PACK_CONFIG = { [POLICY_NAMES.allowedHosts]: { allowedHosts: ["hooks.example.com"] } };

/**
 * {@link PACK_CONFIG} with `webhook-has-delivery-token` made mandatory, in each of the config file's two forms: the
 * level alone, and an object with `enforcementLevel`. Under either, the compliant webhooks fail preview.
 */
export const TOKEN_MANDATORY_CONFIGS = [
  { ...PACK_CONFIG, [POLICY_NAMES.deliveryToken]: "mandatory" },
  { ...PACK_CONFIG, [POLICY_NAMES.deliveryToken]: { enforcementLevel: "mandatory" } },
];

/** The url both webhooks of the duplicate pair take, as a Pulumi secret. */
export const SECRET_URL = "https://hooks.example.com/twin-secret-path?token=twin-s3cr3t";

/** A webhook of a program: `secretUrl` ones take {@link SECRET_URL} as a secret instead of `url`. */
export interface ProgramHook {
  name: string;
  event: string;
  url: string;
  secretUrl?: boolean;
  /** Whether it has a delivery token (the provider mints it). */
  useDeliveryToken?: boolean;
}

/** The compliant webhooks: each breaks only `webhook-has-delivery-token` (advisory under {@link PACK_CONFIG}). */
export const COMPLIANT: [ProgramHook, ...ProgramHook[]] = [
  { name: "compliant", event: "ticket_started", url: "https://hooks.example.com/compliant" },
  { name: "compliant-too", event: "note_added", url: "https://HOOKS.example.com:8443/compliant" },
];

/** A compliant webhook with a delivery token: it breaks no policy, `webhook-has-delivery-token` included. */
export const WITH_TOKEN: ProgramHook = {
  name: "compliant-with-token",
  event: "ticket_closed",
  url: "https://hooks.example.com/with-token",
  useDeliveryToken: true,
};

/** A program with one violation of each policy, and a compliant webhook. */
export const VIOLATING: ProgramHook[] = [
  { name: "plain", event: "ticket_opened", url: "http://hooks.example.com/plain-path?token=plain-token" },
  { name: "outside", event: "ticket_closed", url: "https://elsewhere.example.net/outside-path" },
  { name: "twin-a", event: "customer_added", url: SECRET_URL, secretUrl: true },
  { name: "twin-b", event: "customer_added", url: SECRET_URL, secretUrl: true },
  COMPLIANT[0],
];

/** Which webhook of {@link VIOLATING} breaks which policy. */
export const VIOLATORS = [
  { name: "plain", policy: POLICY_NAMES.https },
  { name: "outside", policy: POLICY_NAMES.allowedHosts },
  { name: "twin-b", policy: POLICY_NAMES.noDuplicates },
];

/** Parts of the urls (paths, queries, tokens) that no output of a run may hold. */
export const FORBIDDEN_IN_OUTPUT = [
  "plain-path",
  "plain-token",
  "outside-path",
  "twin-secret-path",
  "twin-s3cr3t",
  "token=",
];
