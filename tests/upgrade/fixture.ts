/**
 * The facts of the recorded native-provider stack (tests/upgrade/native-0.1.0), shared by its recorder
 * (record-native-0.1.0.ts) and the upgrade test (native-upgrade.test.ts).
 */

/** The passphrase of the recorded stack's secrets (a test fixture's, not a secret). */
export const PASSPHRASE = "native-upgrade-fixture";
/** The stack's name. */
export const STACK = "recorded";
/** The two help desks: their ports are part of the recorded base URLs, so the test starts them on the same ones. */
export const DESKS = {
  home: {
    port: 28711,
    client: {
      clientId: "upgrade-home",
      clientSecret: "upgrade-home-secret-value",
      redirectUri: "http://127.0.0.1:1/callback",
      name: "home",
    },
  },
  eu: {
    port: 28712,
    client: {
      clientId: "upgrade-eu",
      clientSecret: "upgrade-eu-secret-value",
      redirectUri: "http://127.0.0.1:1/callback",
      name: "eu",
    },
  },
} as const;
