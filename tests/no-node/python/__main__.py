"""examples/python, run where no Node.js can be found (tests/no-node/python.test.ts).

Fails at once when ``node`` or ``npm`` is on PATH, then runs the example program (named by the environment variable
``HELPDESK_EXAMPLE_PROGRAM``) unchanged, as its own ``__main__``.
"""
import os
import runpy
import shutil

for tool in ("node", "npm"):
    assert shutil.which(tool) is None, f"{tool} is on PATH ({shutil.which(tool)}): this program must run with no Node.js"

runpy.run_path(os.environ["HELPDESK_EXAMPLE_PROGRAM"], run_name="__main__")
