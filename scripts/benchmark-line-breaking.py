#!/usr/bin/env python3
"""Compares greedy and optimal (Knuth-Plass) line breaking on the fixture articles.

    python3 scripts/benchmark-line-breaking.py [--galley PATH] [--columns 2] [--font-size 10]
        [--threshold 0.8] [--language en] [ARTICLE ...]

Every article is typeset (not drawn) with `galley typeset --json` in one layout, A4 with
--columns columns, justification threshold --threshold and automatic hyphenation, once with
`line_breaking: greedy` and once with `line_breaking: optimal`. For each it prints lines,
justified, hyphenated and loose lines, the total badness (the sum of every line's badness:
0 flush, 100 for spaces stretched to the limit, at most 10,000) and the time typesetting took
inside the process, then the totals. Lower badness, fewer hyphens and fewer loose lines are
better. Needs a release build (bash scripts/build-release.sh).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = ("greedy", "optimal")
FIELDS = ("lines", "justified_lines", "hyphenated_lines", "loose_lines", "badness", "typeset_seconds")


def measure(args, articles, mode, folder):
    config = os.path.join(folder, "%s.yml" % mode)
    with open(config, "w") as f:
        f.write("layouts:\n  - name: %s\n    columns: %d\n    font_size: %g\n    justify_threshold: %g\n"
                "    hyphenation: true\n    language: %s\n    line_breaking: %s\n"
                % (mode, args.columns, args.font_size, args.threshold, args.language, mode))
    result = subprocess.run([args.galley, "typeset", "--config", config, "--json"] + articles,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("galley typeset (%s) exited %d: %s" % (mode, result.returncode, result.stderr.strip()[-500:]))
    report = json.loads(result.stdout)
    return {os.path.basename(d["source"]): d["layouts"][0] for d in report["documents"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--galley", default=os.path.join(ROOT, ".build", "release", "galley"))
    parser.add_argument("--columns", type=int, default=2)
    parser.add_argument("--font-size", type=float, default=10)
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--language", default="en")
    parser.add_argument("articles", nargs="*")
    args = parser.parse_args()
    if not os.access(args.galley, os.X_OK):
        sys.exit("no galley at %s: bash scripts/build-release.sh" % args.galley)
    articles = args.articles or sorted(glob.glob(os.path.join(ROOT, "fixtures", "articles", "*.html"))
                                       + glob.glob(os.path.join(ROOT, "fixtures", "articles", "*.txt")))
    with tempfile.TemporaryDirectory(prefix="galley-breaking-") as folder:
        results = {mode: measure(args, articles, mode, folder) for mode in MODES}
    print("| article | breaking | lines | justified | hyphenated | loose | badness | typeset s |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    totals = {mode: dict.fromkeys(FIELDS, 0.0) for mode in MODES}
    for name in sorted(results["greedy"]):
        for mode in MODES:
            row = results[mode][name]
            for field in FIELDS:
                totals[mode][field] += row[field]
            print("| %s | %s | %d | %d | %d | %d | %.0f | %.3f |" % (
                name, mode, row["lines"], row["justified_lines"], row["hyphenated_lines"], row["loose_lines"],
                row["badness"], row["typeset_seconds"]))
    for mode in MODES:
        t = totals[mode]
        print("| **all** | %s | %d | %d | %d | %d | %.0f | %.3f |" % (
            mode, t["lines"], t["justified_lines"], t["hyphenated_lines"], t["loose_lines"], t["badness"], t["typeset_seconds"]))
    g, o = totals["greedy"], totals["optimal"]
    print()
    print("A4, %d columns, %g pt, justify_threshold %g, hyphenation on (%s). Optimal ÷ greedy: badness %.2f×, "
          "hyphenated lines %.2f×, loose lines %s, typesetting time %.2f×."
          % (args.columns, args.font_size, args.threshold, args.language,
             o["badness"] / max(g["badness"], 1e-9), o["hyphenated_lines"] / max(g["hyphenated_lines"], 1e-9),
             "%d vs %d" % (o["loose_lines"], g["loose_lines"]), o["typeset_seconds"] / max(g["typeset_seconds"], 1e-9)))


if __name__ == "__main__":
    main()
