#!/usr/bin/env python3
"""Validates manifests against schemas/manifest.schema.json with the jsonschema library.

Usage: validate-manifest.py [--schema NAME] FILE.json [...]; exits 1 and prints every violation
otherwise. NAME picks schemas/NAME.schema.json (default manifest; diff for galley diff's
diff.json).
Prefers Debian's python3 (where the install script puts python3-jsonschema).
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate-manifest: the jsonschema module is missing; run scripts/install-deps.sh")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
name = "manifest"
if args[:1] == ["--schema"]:
    name, args = args[1], args[2:]
with open(os.path.join(ROOT, "schemas", name + ".schema.json")) as f:
    schema = json.load(f)
validator_class = jsonschema.validators.validator_for(schema)
validator_class.check_schema(schema)
validator = validator_class(schema, format_checker=jsonschema.FormatChecker())

failed = False
for path in args:
    with open(path) as f:
        manifest = json.load(f)
    for error in sorted(validator.iter_errors(manifest), key=lambda e: list(e.path)):
        failed = True
        print("%s: %s: %s" % (path, "/".join(str(p) for p in error.path) or "(root)", error.message))
sys.exit(1 if failed else 0)
