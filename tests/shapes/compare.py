#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Compare one seed's runs of `iostorm-workload shape` (tests/shapes/run.sh).

Three truths of one shape, file life by file life:

  iostorm    the JSON report of the run traced by iostorm (run A), against
             that run's own tally;
  strace     `strace -ff -y` of a second run of the same seed (run B): its
             opens, reads, writes, syncs and maps, each file's lives told
             apart by the calls that end and begin them (unlink, rename over
             it, a create), against run B's tally: the tally counts what the
             kernel was asked, not what the workload thinks it asked;
  the plan   run A's tally against run B's: the same seed made the same calls.

And, for a shape with a training loop, iostorm's figures of the loop against
the job's own clocks: its data wait against the loop's timed wait, and no
write wait where no worker spent a quarter of its time writing.

Prints what it compared and every difference, both values side by side;
exits 1 on a difference, 2 when it cannot read its inputs. A difference of a
known issue of iostorm's, not yet mended, is printed as KNOWN and fails only
with --strict (`make soak SOAK_STRICT=1`):

  loop_identity  a forked worker process that reads its files and computes
                 between reads is taken for a training loop of its own when
                 the job's loop seldom waits for it (docs/stall.md: process
                 main threads are the candidates, children only where their
                 parent is no loop)
"""
import argparse
import glob
import json
import os
import re
import sys

# What is compared per life, tally key -> iostorm key.
IOSTORM_KEYS = ["opens", "reads", "read_bytes", "async_reads", "writes", "write_bytes",
                "fsyncs", "mmaps"]
# strace sees the system calls, not io_uring's requests nor AIO's reaped reads.
STRACE_KEYS = ["opens", "sync_reads", "sync_read_bytes", "writes", "write_bytes", "fsyncs",
               "mmaps"]
# Writes, syncs of files in memory (tmpfs) are not counted (docs/json.md, vfs.writes).
NOT_ON_TMPFS = {"writes", "write_bytes", "fsyncs"}
MAX_SHOWN = 25
READ_LETTERS = "rpvmqa"          # shape_ops.c's reads in a life's hist (c, w: made, written)
SHARE_TOLERANCE = 0.05          # the loop's data wait against its clock, absolute
WRITE_QUIET = 0.25              # workers that spent less of their busy time writing...
WRITE_SHARE_MAX = 0.05          # ...leave the loop less write wait than this
FOUND_SHARE = 0.20              # a loop that waited this much of its time,
FOUND_WALL = 1.0                # this many seconds long (its data wait compared from there),
FOUND_ITEMS = 20                # taking this many items (consumer_min_wakeups: 10),
FOUND_RUNQ = 0.25               # waiting for a CPU less than this share of its time, is found


def parse_kv(line):
    """'life a=1 b=x path=/p q' -> {'a': '1', 'b': 'x', 'path': '/p q'}."""
    head, _, path = line.partition(" path=")
    d = dict(kv.split("=", 1) for kv in head.split()[1:] if "=" in kv)
    if path:
        d["path"] = path.rstrip("\n")
    return d


def read_tally(fname):
    t = {"shape": {}, "workers": [], "loop": None, "lives": []}
    with open(fname) as f:
        for line in f:
            kind = line.split(" ", 1)[0]
            if kind == "shape":
                t["shape"] = parse_kv(line)
            elif kind == "worker":
                t["workers"].append(parse_kv(line))
            elif kind == "loop":
                t["loop"] = parse_kv(line)
            elif kind == "life":
                d = parse_kv(line)
                for k, v in d.items():
                    if k not in ("fs", "hist", "now", "path"):
                        d[k] = int(v)
                d["sync_reads"] = d["reads"] - d["async_reads"]
                d["sync_read_bytes"] = d["read_bytes"] - d["async_bytes"]
                t["lives"].append(d)
    if not t["shape"]:
        raise ValueError(f"{fname}: no 'shape' line")
    return t


def by_path(items, path_key="path"):
    """{path: [items in order]}."""
    out = {}
    for it in items:
        out.setdefault(it[path_key], []).append(it)
    return out


class Report:
    def __init__(self, strict):
        self.diffs = 0
        self.lines = []
        self.known_lines = []
        self.strict = strict

    def diff(self, what, path, idx, n, key, got, want, extra=""):
        self.diffs += 1
        if self.diffs <= MAX_SHOWN:
            life = f" (life {idx + 1} of {n}{extra})" if n else extra
            self.lines.append(f"  MISMATCH {what}: {path}{life}: {key} {got} != {want}")

    def note(self, line):
        self.diffs += 1
        if self.diffs <= MAX_SHOWN:
            self.lines.append("  MISMATCH " + line)

    def known(self, issue, line):
        """A difference of a known issue (listed above): fails only with --strict."""
        if self.strict:
            self.note(f"{line} [{issue}]")
        else:
            self.known_lines.append(f"  KNOWN {issue}: {line}")


def compare_lives(rep, what, got_by_path, lives, keys, want_of, got_of, hist=True):
    """Pair each path's records with its lives in order; count differences."""
    want_by_path = by_path(lives)
    before = rep.diffs
    for path in sorted(set(want_by_path) | set(got_by_path)):
        want = want_by_path.get(path, [])
        got = got_by_path.get(path, [])
        if len(want) != len(got):
            sums = ", ".join(
                f"{k} {sum(got_of(g, k) or 0 for g in got)} vs {sum(want_of(w, k) for w in want)}"
                for k in keys)
            hists = "/".join(w.get("hist", "-") for w in want)
            rep.note(f"{what}: {path}: {len(got)} records for {len(want)} lives "
                     f"(hist {hists}); summed: {sums}")
            continue
        for i, (g, w) in enumerate(zip(got, want)):
            for k in keys:
                gv, wv = got_of(g, k), want_of(w, k)
                if gv is not None and gv != wv:
                    extra = f", hist {w.get('hist', '-')}" if hist else ""
                    rep.diff(what, path, i, len(want), k, gv, wv, extra)
    return rep.diffs - before


# ---- iostorm

def iostorm_records(report, fsdir, devs):
    """Records of regular files under fsdir that counted a call, by path;
    and those on the shapes' devices with no path under it."""
    recs, stray = [], []
    for f in report.get("files", []):
        if f.get("type") != "file":
            continue
        active = any((f.get(k) or 0) > 0 for k in ("opens", "reads", "writes", "mmaps", "fsyncs"))
        if not active:
            continue
        p = f.get("path")
        if p and p.startswith(fsdir + "/"):
            recs.append(f)
        elif f.get("dev") in devs:
            stray.append(f)
    recs.sort(key=lambda f: (f.get("first_ts_ns") or 0))
    return by_path(recs), stray


def want_iostorm(life, k):
    if life["fs"] == "tmpfs" and k in NOT_ON_TMPFS:
        return 0
    return life[k]


def compare_iostorm(rep, report, tally, fsdir, devs):
    got, stray = iostorm_records(report, fsdir, devs)
    lives = tally["lives"]
    keys = list(IOSTORM_KEYS)
    n = compare_lives(rep, "iostorm vs tally", got, lives, keys, want_iostorm,
                      lambda r, k: r.get(k))
    for s in stray:
        rep.note(f"iostorm: a record on the shapes' file systems (dev {s.get('dev')}) without "
                 f"its path: path {s.get('path')!r} ino {s.get('ino')} opens {s.get('opens')} "
                 f"reads {s.get('reads')} writes {s.get('writes')}")
    # Its size: at the last open, read, write or sync (docs/json.md), none of
    # which leaves it 0 once it was not (only a size not 0 is kept). On tmpfs,
    # whose writes iostorm does not count, only when the last was a read.
    sized = 0
    for path, recs in got.items():
        ls = [lf for lf in lives if lf["path"] == path]
        if len(ls) != len(recs):
            continue
        for i, (r, lf) in enumerate(zip(recs, ls)):
            last = lf["hist"].rstrip("nux")[-1:]
            if lf["fs"] == "tmpfs" and last not in READ_LETTERS:
                continue
            sized += 1
            if r.get("size") != lf["size"]:
                rep.diff("iostorm vs tally", path, i, len(ls), "size", r.get("size"),
                         lf["size"], f", hist {lf['hist']}")
                n += 1
    nrec = sum(len(v) for v in got.values())
    return (f"  iostorm vs tally: {nrec} records for {len(lives)} lives, {n + len(stray)} "
            f"differences; per life {' '.join(keys)} (writes and syncs of tmpfs files: 0, as "
            f"iostorm counts none), and their sizes ({sized}: on tmpfs those last read)")


# ---- strace

CALL = re.compile(r"^(\w+)\((.*)\)\s+=\s+(-?\d+|0x[0-9a-f]+)(?:<([^>]*)>)?")
FD_ARG = re.compile(r"^(-?\d+)<([^>]*)>")
MMAP_FD = re.compile(r", (\d+)<([^>]*)>, (?:0x)?[0-9a-f]+$")
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
READS = {"read", "pread64", "readv", "preadv", "preadv2"}
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2"}
SYNCS = {"fsync", "fdatasync"}
OPENS = {"open", "openat", "openat2", "creat"}


def strace_lives(prefix, fsdir):
    """Each file life under fsdir as strace saw it: {first path: [counts...]}."""
    live = {}          # current path -> life
    lives = []
    under = fsdir + "/"

    def life_at(path, create):
        lf = live.get(path)
        if lf is None and create:
            lf = {"path": path, "opens": 0, "sync_reads": 0, "sync_read_bytes": 0,
                  "writes": 0, "write_bytes": 0, "fsyncs": 0, "mmaps": 0}
            lives.append(lf)
            live[path] = lf
        return lf

    files = sorted(glob.glob(prefix + ".*"))
    if not files:
        raise ValueError(f"no strace logs {prefix}.*")
    for fname in files:
        with open(fname, errors="replace") as f:
            for line in f:
                m = CALL.match(line)
                if not m:
                    continue
                name, args, ret, retpath = m.groups()
                if ret.startswith("-") and name != "mmap":
                    continue
                if name in OPENS:
                    if not retpath or not retpath.startswith(under) or "O_DIRECTORY" in args:
                        continue
                    lf = life_at(retpath, True)
                    lf["opens"] += 1
                    continue
                if name in ("rename", "renameat", "renameat2"):
                    q = QUOTED.findall(args)
                    if len(q) == 2 and q[0] in live:
                        live[q[1]] = live.pop(q[0])
                    continue
                if name in ("unlink", "unlinkat"):
                    q = QUOTED.findall(args)
                    if q and "AT_REMOVEDIR" not in args:
                        live.pop(q[0], None)
                    continue
                if name == "mmap":
                    fm = MMAP_FD.search(args)
                    if fm and fm.group(2).startswith(under) and not ret.startswith("-"):
                        lf = life_at(fm.group(2), False)
                        if lf:
                            lf["mmaps"] += 1
                    continue
                fm = FD_ARG.match(args)
                if not fm or not fm.group(2).startswith(under):
                    continue
                lf = life_at(fm.group(2), False)
                if lf is None:
                    continue
                if name in READS:
                    lf["sync_reads"] += 1
                    lf["sync_read_bytes"] += int(ret)
                elif name in WRITES:
                    lf["writes"] += 1
                    lf["write_bytes"] += int(ret)
                elif name in SYNCS:
                    lf["fsyncs"] += 1
    return by_path(lives), len(files)


def compare_strace(rep, prefix, tally, fsdir):
    got, nlogs = strace_lives(prefix, fsdir)
    n = compare_lives(rep, "strace vs tally", got, tally["lives"], STRACE_KEYS,
                      lambda w, k: w[k], lambda g, k: g[k])
    nrec = sum(len(v) for v in got.values())
    return (f"  strace vs tally (run B, {nlogs} threads' logs): {nrec} lives for "
            f"{len(tally['lives'])}, {n} differences; per life {' '.join(STRACE_KEYS)} "
            f"(io_uring and AIO reads are the tally's alone)")


# ---- the plan, and the loop

def compare_plans(rep, a, b, tag_a, tag_b):
    def norm(life):
        d = dict(life)
        d["path"] = d["path"].replace(f"/{tag_b}/", f"/{tag_a}/")
        d["now"] = d["now"].replace(f"/{tag_b}/", f"/{tag_a}/")
        return d
    keys = [k for k in a["lives"][0] if k not in ("path",)] if a["lives"] else []
    lb = [norm(lf) for lf in b["lives"]]
    n = compare_lives(rep, "run A's tally vs run B's", by_path(lb), a["lives"], keys,
                      lambda w, k: w[k], lambda g, k: g[k])
    return f"  the plan: run A's tally and run B's, {len(a['lives'])} lives, {n} differences"


def compare_sizes(rep, tally):
    """The files left at the end against their tally: each life's size."""
    n = checked = 0
    for lf in tally["lives"]:
        if lf["now"] == "-" or lf["fs"] == "fuse":
            continue
        checked += 1
        try:
            size = os.stat(lf["now"]).st_size
        except OSError as e:
            size = f"({e.strerror})"
        if size != lf["size"]:
            n += 1
            rep.diff("the files vs tally", lf["now"], 0, 0, "size", size, lf["size"],
                     f" (made at {lf['path']}, hist {lf['hist']})")
    return f"  the files vs tally (run B): the sizes of the {checked} files left, {n} differences"


def compare_loop(rep, report, tally):
    loop = tally["loop"]
    if not loop:
        return None
    st = report.get("stall") or {}
    main = int(tally["shape"]["pid"])
    clock = float(loop["wait_share"])
    wall = int(loop["wall_ns"]) / 1e9
    runq_clock = int(loop.get("runq_ns", 0)) / max(int(loop["wall_ns"]), 1)
    wshares = [int(w["write_ns"]) / max(int(w["busy_ns"]), 1) for w in tally["workers"]]
    quiet = max(wshares) < WRITE_QUIET
    workers = {int(w["tid"]): w for w in tally["workers"]}
    out = []
    for lp in st.get("loops") or []:
        tid = (lp.get("consumer") or {}).get("tid")
        if tid != main and tid in workers:
            w = workers[tid]
            rep.known("loop_identity",
                      f"iostorm took worker {w['k']} (tid {tid}, a {w['kind']} that reads and "
                      f"computes {w['cpu_us']} us a read) for a training loop "
                      f"({lp.get('how')}, share {lp.get('share')}); the job's loop is its main "
                      f"thread, tid {main}, whose clock waited {clock:.3f}")
            out.append(f"  loop: iostorm also took worker {w['k']} (tid {tid}) for a loop")
    ml = next((lp for lp in st.get("loops") or []
               if (lp.get("consumer") or {}).get("tid") == main), None)
    if not ml:
        # a loop that seldom waits (the workers keep ahead of it) shows no
        # loader, nor one starved of CPU (its items wait for it)
        must = (clock >= FOUND_SHARE and wall >= FOUND_WALL
                and int(loop["items"]) >= FOUND_ITEMS and runq_clock < FOUND_RUNQ)
        if must:
            rep.note(f"loop: iostorm did not find the training loop, tid {main} (its clock: "
                     f"wait share {clock:.3f} of {wall:.2f} s, {loop['items']} items, "
                     f"waiting for a CPU {runq_clock:.3f})")
        out.append(f"  loop: the main thread not found, its clock's wait share {clock:.3f} of "
                   f"{wall:.2f} s, {loop['items']} items, waiting for a CPU {runq_clock:.3f} "
                   f"(must be found from {FOUND_SHARE}, {FOUND_WALL:.0f} s, {FOUND_ITEMS} "
                   f"items, under {FOUND_RUNQ})")
        return "\n".join(out)
    share, wshare = ml.get("share"), ml.get("write_share") or 0
    # Time waiting for a CPU is the clock's wait when it follows a wakeup,
    # its computing when it preempts a step: either side, by up to that much
    # (as iostorm or the thread's schedstat saw it, the larger).
    runq = max((ml.get("runnable_ns") or 0) / max(ml.get("wall_ns") or 1, 1), runq_clock)
    tol = SHARE_TOLERANCE + runq
    # a loop of under a second is cut at a drain (0.1 s) from its set-up
    if wall >= FOUND_WALL and (share is None or abs(share - clock) > tol):
        rep.note(f"loop: data wait share {share} != the loop's clock {clock:.4f} "
                 f"(+-{tol:.3f}: {SHARE_TOLERANCE} and {runq:.3f} runnable; over {wall:.2f} s)")
    headline = (st.get("consumer") or {}).get("tid") == main
    bound = [f["severity"] for f in report.get("findings", []) if f.get("id") == "write_wait"]
    verdict = report.get("verdict") or ""
    if quiet and (wshare >= WRITE_SHARE_MAX or (headline and (
            "write-bound" in verdict or any(s in ("WARN", "HIGH") for s in bound)))):
        rep.note(f"loop: write wait share {wshare:.3f} (writer threads "
                 f"{ml.get('writer_threads')}, write_wait {bound or 'none'}), but no worker "
                 f"spent {WRITE_QUIET:.0%} of its time writing by its clock "
                 f"(most {max(wshares):.1%}): verdict {verdict!r}")
    judged = f"+-{tol:.3f}" if wall >= FOUND_WALL else f"not compared under {FOUND_WALL:.0f} s"
    out.append(f"  loop: data wait {share:.3f} against its clock's {clock:.3f} ({judged}, "
               f"{wall:.2f} s); write wait {wshare:.3f}; the workers spent "
               f"at most {max(wshares):.1%} of their busy time writing"
               + (f", so it must be under {WRITE_SHARE_MAX}" if quiet else " (not judged)"))
    return "\n".join(out)


def devices(fsdir):
    out = set()
    for e in sorted(os.listdir(fsdir)):
        p = os.path.join(fsdir, e)
        if os.path.isdir(p):
            d = os.stat(p).st_dev
            out.add(f"{os.major(d)}:{os.minor(d)}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fs", required=True, help="the directory of the file systems")
    ap.add_argument("--json", required=True, help="run A's iostorm report")
    ap.add_argument("--tally-a", required=True)
    ap.add_argument("--tag-a", required=True)
    ap.add_argument("--tally-b", help="run B's tally (the strace run)")
    ap.add_argument("--tag-b")
    ap.add_argument("--strace", help="run B's strace -ff log prefix")
    ap.add_argument("--strict", action="store_true",
                    help="the known issues' differences fail too")
    a = ap.parse_args()
    try:
        with open(a.json) as f:
            report = json.load(f)
        ta = read_tally(a.tally_a)
        tb = read_tally(a.tally_b) if a.tally_b else None
    except (OSError, ValueError) as e:
        print(f"compare: {e}", file=sys.stderr)
        return 2
    fsdir = os.path.realpath(a.fs)
    rep = Report(a.strict)
    sh = ta["shape"]
    kinds = ", ".join(w["kind"] for w in ta["workers"])
    per_fs = {}
    for lf in ta["lives"]:
        per_fs[lf["fs"]] = per_fs.get(lf["fs"], 0) + 1
    out = [f"  shape: {sh.get('workers')} workers ({kinds}), "
           f"{'a training loop' if ta['loop'] else 'no loop'}; {len(ta['lives'])} lives ("
           + ", ".join(f"{k} {v}" for k, v in sorted(per_fs.items())) + ")"]
    out.append(compare_iostorm(rep, report, ta, fsdir, devices(fsdir)))
    if tb:
        out.append(compare_plans(rep, ta, tb, a.tag_a, a.tag_b))
    if tb and a.strace:
        out.append(compare_sizes(rep, tb))
        try:
            out.append(compare_strace(rep, a.strace, tb, fsdir))
        except ValueError as e:
            print(f"compare: {e}", file=sys.stderr)
            return 2
    lp = compare_loop(rep, report, ta)
    if lp:
        out.append(lp)
    lost = (report.get("lost") or {}).get("total")
    if lost:
        rep.note(f"iostorm lost {lost} events")
    print("\n".join(out))
    if rep.known_lines:
        print("\n".join(rep.known_lines))
    if rep.lines:
        print("\n".join(rep.lines))
    if rep.diffs > MAX_SHOWN:
        print(f"  ... and {rep.diffs - MAX_SHOWN} more")
    return 1 if rep.diffs else 0


if __name__ == "__main__":
    sys.exit(main())
