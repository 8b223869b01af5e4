#!/usr/bin/python3
"""A Python input pipeline for iostorm's tests, with no framework: one
reader thread reads each file of DIR whole (sorted order), sleeps --sleep-ms
(a remote store's round trip), and puts it on a queue of --queue items; the
main thread, the training loop, takes one a step and spins --step-ms of CPU.
It times its own wait for each item (time.perf_counter around the queue's
get) and writes one line:

  loop steps=N wait_ns=N wall_ns=N wait_share=F

  pipe.py DIR [--sleep-ms MS] [--step-ms MS] [--queue Q] [--tally FILE]

Python starts in a few tens of milliseconds, so a tracer that launches it
sees little but the loop.
"""
import argparse
import os
import queue
import sys
import threading
import time


def files_of(d):
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs)


def reader(files, q, sleep_s):
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        time.sleep(sleep_s)
        q.put(data)
    q.put(None)


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--sleep-ms", type=float, default=12)
    p.add_argument("--step-ms", type=float, default=4)
    p.add_argument("--queue", type=int, default=4)
    p.add_argument("--tally")
    args = p.parse_args()
    q = queue.Queue(maxsize=args.queue)
    threading.Thread(target=reader, name="reader", daemon=True,
                     args=(files_of(args.dir), q, args.sleep_ms / 1000)).start()
    steps = wait = 0
    t_start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        item = q.get()
        wait += time.perf_counter() - t0
        if item is None:
            break
        spin(args.step_ms / 1000)
        steps += 1
    wall = time.perf_counter() - t_start
    line = "loop steps=%d wait_ns=%d wall_ns=%d wait_share=%.4f\n" % (
        steps, wait * 1e9, wall * 1e9, wait / wall if wall else 0)
    if args.tally:
        with open(args.tally, "w") as f:
            f.write(line)
    else:
        sys.stdout.write(line)


if __name__ == "__main__":
    main()
