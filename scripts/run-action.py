#!/usr/bin/env python3
"""Runs the shell steps of action.yml as GitHub's runner would, for the tests.

    run-action.py WORKSPACE INPUTS.json

Loads action.yml from the repository, fills `${{ inputs.* }}` (given or default) and
`${{ steps.ID.outputs.* }}` (from each step's $GITHUB_OUTPUT), evaluates each step's `if:`
(`always()`, `==`, `!=`, `&&`, `||` over those values; without `if:`, a step runs only while
every earlier step succeeded), and runs every `run:` step with bash in WORKSPACE with the
step's `env:` and the GITHUB_* variables a runner sets (GITHUB_ACTIONS, GITHUB_WORKSPACE,
GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY: WORKSPACE/summary.md). `uses:` steps
are not run; they are listed with their `with:` values filled in. Prints one JSON object:
{"steps": [{"name", "ran", "status", "stdout", "stderr", "outputs"} or {"name", "uses", "with", "ran"}]}.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
workspace, given = sys.argv[1], json.load(open(sys.argv[2]))
action = yaml.safe_load(open(os.path.join(ROOT, "action.yml")))
inputs = {name: str(given.get(name, spec.get("default", ""))) for name, spec in action["inputs"].items()}
outputs = {}


def value(reference):
    parts = reference.split(".")
    if parts[0] == "inputs":
        return inputs[parts[1]]
    if parts[0] == "steps" and parts[2] == "outputs":
        return outputs.get(parts[1], {}).get(parts[3], "")
    raise ValueError("unknown reference " + reference)


def fill(text):
    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: value(m.group(1)), str(text))


def condition(expression, failed):
    if expression is None:
        return not failed
    python = re.sub(r"(inputs|steps)\.[\w.-]+", lambda m: repr(value(m.group(0))), expression)
    python = python.replace("always()", "True").replace("&&", " and ").replace("||", " or ")
    return bool(eval(python, {"__builtins__": {}}))


report, failed = [], False
summary = os.path.join(workspace, "summary.md")
for step in action["runs"]["steps"]:
    ran = condition(step.get("if"), failed)
    if "uses" in step:
        report.append({"name": step["name"], "uses": step["uses"], "ran": ran,
                       "with": {k: fill(v) for k, v in step.get("with", {}).items()}})
        continue
    entry = {"name": step["name"], "ran": ran}
    if ran:
        with tempfile.NamedTemporaryFile("r", delete=False) as output_file:
            pass
        environment = dict(os.environ)
        environment.update({k: fill(v) for k, v in step.get("env", {}).items()})
        environment.update({"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": workspace, "GITHUB_ACTION_PATH": ROOT,
                            "GITHUB_OUTPUT": output_file.name, "GITHUB_STEP_SUMMARY": summary})
        result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=workspace, env=environment,
                                capture_output=True, text=True)
        lines = open(output_file.name).read().splitlines()
        os.unlink(output_file.name)
        step_outputs = dict(line.split("=", 1) for line in lines if "=" in line)
        if "id" in step:
            outputs[step["id"]] = step_outputs
        entry.update({"status": result.returncode, "stdout": result.stdout, "stderr": result.stderr,
                      "outputs": step_outputs})
        failed = failed or result.returncode != 0
    report.append(entry)
print(json.dumps({"steps": report}))
