"""The no-Node.js policy suite's Python program (tests/no-node/policy.test.ts): one native Webhook per entry of
config `hooks` (JSON: [{name, event, url, secretUrl?}]); an entry with `secretUrl` takes the secret config value
`secretUrl` instead of its url."""
import json
import shutil

import pulumi
import pulumi_helpdesk as helpdesk

# The suite's promise: no Node.js where the program and the policy pack run.
assert shutil.which("node") is None and shutil.which("npm") is None, "node or npm is on PATH"

config = pulumi.Config()
for hook in json.loads(config.require("hooks")):
    url = config.require_secret("secretUrl") if hook.get("secretUrl") else hook["url"]
    helpdesk.Webhook(hook["name"], event=hook["event"], url=url)
