#!/usr/bin/env python3
"""What a plan saves a sharded run (#37): bytes read and time.

    python3 scripts/benchmark-shards.py [--galley .build/release/galley] [--copies 5] [--shards 3] [--keep DIR]

Makes a corpus of the fixtures' PDFs and articles, `--copies` times over (each copy made
distinct by a trailing comment, so no output is reused across copies), then runs, one process
at a time, on this machine:

* a single `galley run` (the full run's time and bytes read);
* `galley plan --shards N`, then `galley run --plan --shard K/N` for each K, then `galley merge`;
* N hash shards, `galley run --shard K/N`, then `galley merge`;
* a no-change `galley run` into the merged folder of the plan.

Bytes read from the corpus are counted under strace (`-e trace=read,pread64,readv,preadv -y`:
each read's file is known, so fonts, dictionaries and the catalog are left out); each process's
`rchar` from /proc/<pid>/io (every read, of any file, cached or not), read when it has exited
and before it is reaped, is shown too. A run reads each file it draws about twice (hashed, then
opened), so a single run reads about twice the corpus, the hash shards once more per shard
beyond the first, the plan and its shards as much as a single run (the planner reads each new
file once: `galley plan alone`). Times (wall and CPU) of the
full run and the no-change runs are taken without strace.
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(argv, cwd, env, corpus=None):
    """Runs argv; returns (exit status, wall seconds, CPU seconds, rchar, bytes read from files
    under `corpus`). With `corpus`, the process runs under strace, which sees each read's file."""
    trace = None
    if corpus:
        trace = tempfile.NamedTemporaryFile(prefix="galley-strace-", delete=False).name
        argv = ["strace", "-f", "-qq", "-y", "-s", "0", "-e", "trace=read,pread64,readv,preadv", "-o", trace] + argv
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Wait for the exit without reaping, so /proc/<pid>/io still holds the totals.
    os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
    elapsed = time.monotonic() - start
    counters = {}
    with open(f"/proc/{process.pid}/io") as io:
        for line in io:
            key, value = line.split(":")
            counters[key] = int(value)
    _, stderr = process.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if process.returncode not in (0, 1):
        sys.exit(f"benchmark-shards: {' '.join(argv)} exited {process.returncode}:\n{stderr.decode(errors='replace')}")
    corpus_read = 0
    if trace:
        pattern = re.compile(r"\b(?:read|pread64|readv|preadv)\(\d+<([^>]*)>.*\)\s+=\s+(\d+)")
        with open(trace, errors="replace") as lines:
            for line in lines:
                match = pattern.search(line)
                if match and match.group(1).startswith(corpus + "/"):
                    corpus_read += int(match.group(2))
        os.unlink(trace)
    return process.returncode, elapsed, cpu, counters["rchar"], corpus_read


def make_corpus(folder, copies):
    total = 0
    for copy in range(1, copies + 1):
        target = os.path.join(folder, f"copy-{copy:02d}")
        os.makedirs(os.path.join(target, "articles"))
        for name in sorted(os.listdir(os.path.join(ROOT, "fixtures/pdf"))):
            if name == "encrypted.pdf":
                continue
            data = open(os.path.join(ROOT, "fixtures/pdf", name), "rb").read()
            with open(os.path.join(target, name), "wb") as out:
                out.write(data + f"\n% copy {copy}\n".encode())
        articles = os.path.join(ROOT, "fixtures/articles")
        shutil.copytree(os.path.join(articles, "images"), os.path.join(target, "articles/images"))
        for name in sorted(os.listdir(articles)):
            if not name.endswith((".html", ".txt")) or name == "ja-sjis.html":
                continue
            data = open(os.path.join(articles, name), "rb").read()
            marker = f"\n<!-- copy {copy} -->\n" if name.endswith(".html") else f"\n(copy {copy})\n"
            with open(os.path.join(target, "articles", name), "wb") as out:
                out.write(data + marker.encode())
    for base, _, names in os.walk(folder):
        total += sum(os.path.getsize(os.path.join(base, n)) for n in names if n.endswith((".pdf", ".html", ".txt")))
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--galley", default=os.path.join(ROOT, ".build/release/galley"))
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--keep", help="work in this folder and keep it")
    args = parser.parse_args()
    galley = os.path.abspath(args.galley)
    work = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="galley-shards-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    if "FONTCONFIG_FILE" not in env:
        env["FONTCONFIG_FILE"] = subprocess.check_output(["bash", os.path.join(ROOT, "scripts/test-fonts.sh")], text=True).strip()
    corpus = os.path.join(work, "corpus")
    if os.path.exists(corpus):
        shutil.rmtree(corpus)
    corpus_bytes = make_corpus(corpus, args.copies)
    documents = sum(1 for _, _, names in os.walk(corpus) for n in names if n.endswith((".pdf", ".html", ".txt")))
    for name in os.listdir(work):
        if name != "corpus":
            shutil.rmtree(os.path.join(work, name))
    settings = ["--input", corpus, "--dpi", "40", "--thumbnails", "64", "--progress", "none"]
    n = args.shards
    rows = []

    def measure(label, argvs, trace=True):
        totals = [0.0, 0.0, 0, 0]
        for argv in argvs:
            _, *figures = run([galley] + argv, work, env, corpus if trace else None)
            totals = [a + b for a, b in zip(totals, figures)]
        rows.append((label, len(argvs), trace, *totals))
        return totals

    plan_argv = ["plan", "--shards", str(n), "--input", corpus, "--library", "merged"]
    # Timed without strace: a full run, then a no-change run into its folder and into the merged one.
    full = measure("single run (untraced)", [["run", "--output", "timed"] + settings], trace=False)
    again = measure("no-change run into its folder (untraced)", [["run", "--output", "timed"] + settings], trace=False)
    single = measure("single run", [["run", "--output", "single"] + settings])
    planned = measure(f"plan + {n} planned shards + merge",
                      [plan_argv + ["--output", "plan.json"]]
                      + [["run", "--plan", "plan.json", "--shard", f"{k}/{n}", "--output", f"planned-{k}"] + settings
                         for k in range(1, n + 1)]
                      + [["merge", "merged"] + [f"planned-{k}" for k in range(1, n + 1)]])
    # The planner alone: it reads each new file once (hashed, and a PDF opened, from one read).
    plan_alone = measure("galley plan alone (a fresh library)", [plan_argv[:-1] + ["unplanned", "--output", "plan-alone.json"]])
    hashed = measure(f"{n} hash shards + merge",
                     [["run", "--shard", f"{k}/{n}", "--output", f"hashed-{k}"] + settings for k in range(1, n + 1)]
                     + [["merge", "merged-by-hash"] + [f"hashed-{k}" for k in range(1, n + 1)]])
    rerun = measure("no-change run into the merged folder (untraced)", [["run", "--output", "merged"] + settings], trace=False)
    replan = measure("plan again against the merged folder", [plan_argv + ["--output", "plan-2.json"]])
    totals = json.load(open(os.path.join(work, "merged/manifest.json")))["totals"]

    print(f"corpus: {documents} documents, {corpus_bytes:,} bytes ({args.copies} copies of the fixtures); galley {galley}")
    print(f"{'':48} {'processes':>9} {'wall s':>8} {'CPU s':>8} {'rchar':>13} {'corpus read':>12} {'x corpus':>8}")
    for label, processes, traced, seconds, cpu, rchar, corpus_read in rows:
        read = f"{corpus_read:12,} {corpus_read / corpus_bytes:8.2f}" if traced else f"{'-':>12} {'-':>8}"
        print(f"{label:48} {processes:9} {seconds:8.2f} {cpu:8.2f} {rchar:13,} {read}")
    print(f"corpus bytes read: single run {single[3] / corpus_bytes:.2f} x corpus, plan + shards {planned[3] / corpus_bytes:.2f} x, "
          f"hash shards {hashed[3] / corpus_bytes:.2f} x; hashing alone: plan + shards "
          f"{(planned[3] - single[3] + corpus_bytes) / corpus_bytes:.2f} x, hash shards {(hashed[3] - single[3] + corpus_bytes) / corpus_bytes:.2f} x")
    print(f"no-change run into the merged folder: {rerun[0]:.2f} s wall, {rerun[1]:.2f} s CPU = {100 * rerun[0] / full[0]:.1f}% "
          f"({100 * rerun[1] / full[1]:.1f}% of CPU) of the full run's {full[0]:.2f} s ({full[1]:.2f} s CPU); into a single "
          f"run's folder {again[0]:.2f} s ({again[1]:.2f} s CPU); {totals['unchanged']} of {totals['documents']} documents unchanged")
    print(f"plan against the merged folder: {replan[0]:.2f} s, {replan[3]:,} corpus bytes read; "
          f"plan alone against a fresh library: {plan_alone[3] / corpus_bytes:.2f} x corpus")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
