#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""One story: no two statements of an iostorm report contradict each other.

Usage: tests/check_story.py REPORT...      a JSON report (schema iostorm.report/1)
                                           or a text report, by its content
       tests/check_story.py --scan DIR     every report under DIR (tests/run.sh
                                           runs it on each test's directory;
                                           a folder holding .story-skip is
                                           skipped: made contradictory on purpose)

A report is read as statements: the verdict line, the latency-by-layer
verdict ("=> ..."), each finding's summary with its severity, and the
figures behind them (block read count, miss_share). The rules below say
which statements cannot stand side by side; a broken rule prints both, and
the exit status is 1. Exit 0 when every report tells one story; 2 on a
bad command line or an unreadable report.

The rules (docs/findings.md, "One story"):
  cache-vs-storage   the page cache served the reads (layer page_cache,
                     storage_bottleneck or page_cache "reads served from the
                     page cache", the verdict saying so) cannot sit beside a
                     statement that storage served them (a share of the bytes
                     read from storage at or above cache_miss, the layer
                     verdicts fuse, no_block, ok, queue, device, the reads
                     going through FUSE, storage-bound, slow, saturated)
  one-miss-share     every "N% of the bytes read came from storage" says the
                     same N
  no-block           "no block requests" / "no block read requests" only
                     with zero block read requests by the target (and the
                     layer verdict no_block likewise)
  keeps-up-vs-slow   "storage keeps up" (storage_bottleneck or the verdict)
                     cannot sit beside a slow, saturated, throttled,
                     queued or storage-bound statement (layer device, queue
                     or above_block included)
  verdict-findings   the verdict's terms match the findings: storage-bound
                     needs storage_bottleneck at WARN or HIGH; CPU-bound or
                     CPU-starved needs cpu_bound; input-bound needs
                     input_bound at WARN or HIGH and "the loader keeps up"
                     needs it OK; "too little file I/O" needs little_io;
                     "(HIGH)" or "(WARN)" needs a finding of that severity;
                     "the loader is CPU-..." may come from input_cause too

Each phase of the run ("phases" in the JSON, the PHASES section of the
text) is a story of its own, checked by the same rules on its verdict and
the findings it lists; a phase lists its most severe findings only, so a
finding a phase's verdict names but does not list is not held against it.
"""
import json
import os
import re
import sys

CACHE_MISS = 0.1	# the cache_miss threshold's default (reports do not carry it)

SERVED_FROM_CACHE = "reads served from the page cache"
PCT_FROM_STORAGE = re.compile(r"([0-9.]+)% of the bytes read came from storage")
NO_BLOCK = re.compile(r"\bno block (read )?requests\b")
SLOW_STARTS = ("slow device", "device saturated", "storage throttled", "storage-bound",
	       "device IOPS-bound", "block reads wait in the queue",
	       "reads wait above the block layer")
SLOW_LAYERS = ("device", "queue", "above_block")
STORAGE_LAYERS = ("fuse", "no_block", "ok", "queue", "device")


class Report:
	"""Statements of one report: (what, text) pairs, and its figures."""

	def __init__(self, name):
		self.name = name
		self.verdict = None		# the verdict line
		self.layer = None		# layer verdict key (JSON only)
		self.layer_words = None		# "=> ..." line
		self.blk_reads = None		# the target's block read requests
		self.findings = []		# (id or None, severity, summary)
		self.partial = False		# a phase: its top findings only
		self.phases = []		# Reports of its phases


def from_json(name, doc):
	r = Report(name)
	r.verdict = doc.get("verdict")
	layers = doc.get("layers") or {}
	r.layer = layers.get("verdict")
	r.layer_words = layers.get("finding")
	total = layers.get("block_total") or {}
	r.blk_reads = total.get("count")
	for f in doc.get("findings") or []:
		r.findings.append((f.get("id"), f.get("severity"), f.get("summary") or ""))
	for k, ph in enumerate(doc.get("phases") or []):
		p = Report("%s, phase %d" % (name, k + 1))
		p.partial = True
		p.verdict = ph.get("verdict")
		for f in ph.get("findings") or []:
			p.findings.append((f.get("id"), f.get("severity"), f.get("summary") or ""))
		r.phases.append(p)
	return r


FINDING_LINE = re.compile(r"^  (HIGH|WARN|INFO|OK) +(.*)$")
PHASE_HEAD = re.compile(r"^ [ *]([0-9]+)  [0-9.]+-[0-9.]+ s: ")	# "*": changed again within
PHASE_FINDING = re.compile(r"^     (HIGH|WARN|INFO|OK) +(.*)$")
BLOCK_ROW = re.compile(r"^  block requests \(target\) +([0-9]+)")


SCREEN_COLS = 100	# the default report's width (user/report/brief.c)
SEVERITIES = ("HIGH ", "WARN ", "INFO ", "OK   ")
LABEL = re.compile(r"^( *)([a-z]+  +)")


def hang_of(line):
	"""Where brief.c starts a wrapped line's continuations (its hang_of())."""
	lead = len(line) - len(line.lstrip(" "))
	rest = line[lead:]
	if rest.startswith(SEVERITIES):
		return lead + 5
	if rest.startswith("-> "):
		return lead + 3
	m = LABEL.match(line)
	if m and m.end() <= 12:
		return m.end()
	return lead + 2


def unwrap(text):
	"""The default report's lines as printed before brief.c wrapped them at
	100 columns: a line that continues the one before starts at the first
	line's hang, and its first word would not have fitted after the line
	before. The full report (no "iostorm --full" hint) is never wrapped."""
	lines = text.splitlines()
	if not any(l.endswith("iostorm --full") for l in lines):
		return lines
	out, last = [], None	# last: the physical line before
	for line in lines:
		if out and last is not None and len(last) <= SCREEN_COLS:
			hang = hang_of(out[-1])
			body = line[hang:]
			if (line.startswith(" " * hang) and body[:1] not in ("", " ")
			    and not body.startswith("-> ")
			    and len(last) + 1 + len(body.split(" ")[0]) > SCREEN_COLS):
				out[-1] += " " + body
				last = line
				continue
		out.append(line)
		last = line
	return out


def from_text(name, text):
	r = Report(name)
	in_findings = False	# the lines right under the verdict
	phase = None		# the phase whose lines these are, in PHASES
	for line in unwrap(text):
		if line.startswith("PHASES: "):
			phase = False
			continue
		if phase is not None:
			if PHASE_HEAD.match(line):
				phase = Report("%s, phase %s" % (name, PHASE_HEAD.match(line).group(1)))
				phase.partial = True
				r.phases.append(phase)
			elif phase and line.startswith("     VERDICT: "):
				phase.verdict = line[5:]
			elif phase and PHASE_FINDING.match(line):
				m = PHASE_FINDING.match(line)
				phase.findings.append((None, m.group(1), m.group(2)))
			elif not line.strip():
				phase = None
			continue
		m = FINDING_LINE.match(line)
		if in_findings and m:
			r.findings.append((None, m.group(1), m.group(2)))
			continue
		in_findings = in_findings and line.startswith("       -> ")
		if line.startswith("VERDICT:") and r.verdict is None:
			r.verdict = line
			in_findings = True
		elif line.startswith("  => "):
			r.layer_words = line[5:]
		elif BLOCK_ROW.match(line):
			r.blk_reads = int(BLOCK_ROW.match(line).group(1))
	return r


def finding(r, fid, start=None):
	"""The finding of id fid (JSON), or the one whose summary starts with start (text)."""
	for i, sev, text in r.findings:
		if (fid and i == fid) or (start and i is None and text.startswith(start)):
			return (sev, text)
	return None


def statements(r):
	out = []
	if r.verdict:
		out.append(("the verdict", r.verdict))
	if r.layer_words:
		out.append(("the latency-by-layer verdict", r.layer_words))
	for i, sev, text in r.findings:
		out.append(("%s %s" % (i or "finding", sev), text))
	return out


def cache_claims(r):
	claims = []
	if r.layer == "page_cache" or (r.layer_words or "").startswith(
			"reads are served from the page cache"):
		claims.append(("the latency-by-layer verdict", r.layer_words or r.layer))
	for what, text in statements(r):
		if what != "the latency-by-layer verdict" and SERVED_FROM_CACHE in text:
			claims.append((what, text))
		elif what.startswith(("page_cache OK", "finding OK")) and text.startswith(
				"page cache:") and "came from storage; working set" in text:
			claims.append((what, text))
	return claims


def storage_claims(r):
	claims = []
	if r.layer in STORAGE_LAYERS:
		claims.append(("the latency-by-layer verdict (%s)" % r.layer, r.layer_words))
	for what, text in statements(r):
		m = PCT_FROM_STORAGE.search(text)
		if m and float(m.group(1)) >= CACHE_MISS * 100:
			claims.append((what, text))
		elif "the reads go through FUSE" in text or "the data comes through the FUSE" in text:
			claims.append((what, text))
		elif what != "the verdict" and text.startswith(SLOW_STARTS):
			claims.append((what, text))
	return claims


def slow_claims(r):
	claims = []
	if r.layer in SLOW_LAYERS:
		claims.append(("the latency-by-layer verdict (%s)" % r.layer, r.layer_words))
	for what, text in statements(r):
		if what == "the verdict":
			if "storage-bound" in text:
				claims.append((what, text))
		elif text.startswith(SLOW_STARTS):
			claims.append((what, text))
	return claims


def keeps_up_claims(r):
	claims = []
	for what, text in statements(r):
		if text.startswith("storage keeps up") or (
				what == "the verdict" and "storage keeps up" in text):
			claims.append((what, text))
	return claims


def pairs(a, b):
	"""The first contradiction between two lists of claims, or None."""
	for x in a:
		for y in b:
			if x != y:
				return (x, y)
	return None


def check_verdict(r, errors):
	v = r.verdict
	if not v:
		return
	bott = finding(r, "storage_bottleneck", None)
	sevs = {sev for _, sev, _ in r.findings}
	if "storage-bound" in v and r.findings and r.findings[0][0] is not None:
		if not (bott and bott[0] in ("WARN", "HIGH")) and not (r.partial and not bott):
			errors.append(("verdict-findings", ("the verdict", v),
				       ("storage_bottleneck", "%s: %s" % bott if bott else "absent")))
	if "storage keeps up" in v and bott:
		if not bott[1].startswith(("storage keeps up", "storage is not the bottleneck")):
			errors.append(("verdict-findings", ("the verdict", v),
				       ("storage_bottleneck %s" % bott[0], bott[1])))
	if re.search(r"\bCPU-(bound|starved)\b", v) and r.findings and r.findings[0][0]:
		cause = finding(r, "input_cause")
		if not finding(r, "cpu_bound") and not (
				cause and cause[1].startswith("the loader is CPU-")) and not r.partial:
			errors.append(("verdict-findings", ("the verdict", v), ("cpu_bound", "absent")))
	ib = finding(r, "input_bound", "input-bound") or finding(r, None, "the loader keeps up")
	if r.partial and not ib:
		return	# a phase's verdict may name a finding it does not list
	if "(input-bound," in v and not (ib and ib[0] in ("WARN", "HIGH")):
		errors.append(("verdict-findings", ("the verdict", v),
			       ("input_bound", "%s: %s" % ib if ib else "absent")))
	if v.startswith("VERDICT: the loader keeps up") and not (ib and ib[0] == "OK"):
		errors.append(("verdict-findings", ("the verdict", v),
			       ("input_bound", "%s: %s" % ib if ib else "absent")))
	if v.startswith("VERDICT: too little file I/O") and not (
			finding(r, "little_io", "too little file I/O")):
		errors.append(("verdict-findings", ("the verdict", v), ("little_io", "absent")))
	for sev in ("HIGH", "WARN"):
		if re.search(r"[(, ]%s\)" % sev, v) and sev not in sevs and r.findings:
			errors.append(("verdict-findings", ("the verdict", v),
				       ("the findings", "none at %s" % sev)))


def check(r):
	"""Every broken rule as (rule, (what, text), (what, text))."""
	errors = []
	c = pairs(cache_claims(r), storage_claims(r))
	if c:
		errors.append(("cache-vs-storage",) + c)
	shares = [(what, text, PCT_FROM_STORAGE.search(text).group(1))
		  for what, text in statements(r) if PCT_FROM_STORAGE.search(text)]
	for (w1, t1, p1), (w2, t2, p2) in zip(shares, shares[1:]):
		if p1 != p2:
			errors.append(("one-miss-share", (w1, t1), (w2, t2)))
	blk = r.blk_reads
	if blk:
		for what, text in statements(r):
			if NO_BLOCK.search(text):
				errors.append(("no-block", (what, text),
					       ("the latency-by-layer table",
						"%d block read requests by the target" % blk)))
		if r.layer == "no_block":
			errors.append(("no-block", ("the latency-by-layer verdict (no_block)",
						    r.layer_words),
				       ("the latency-by-layer table",
					"%d block read requests by the target" % blk)))
	c = pairs(keeps_up_claims(r), slow_claims(r))
	if c:
		errors.append(("keeps-up-vs-slow",) + c)
	check_verdict(r, errors)
	for k, p in enumerate(r.phases):
		for rule, (w1, t1), (w2, t2) in check(p):
			errors.append((rule, ("phase %d, %s" % (k + 1, w1), t1),
				       ("phase %d, %s" % (k + 1, w2), t2)))
	return errors


def load(path):
	"""A Report from a file, None when it is no iostorm report."""
	try:
		with open(path, "rb") as fh:
			raw = fh.read()
	except OSError as e:
		raise SystemExit("check_story: cannot read '%s': %s" % (path, e.strerror))
	text = raw.decode("utf-8", "replace")
	if text.lstrip().startswith("{"):
		try:
			doc = json.loads(text)
		except ValueError:
			return None
		if not isinstance(doc, dict) or doc.get("schema") != "iostorm.report/1":
			return None
		return from_json(path, doc)
	if re.search(r"^VERDICT: ", text, re.M) and "latency by layer" in text:
		return from_text(path, text)
	return None


def scan(d):
	for root, dirs, files in os.walk(d):
		if ".story-skip" in files:	# contradictions made on purpose
			dirs[:] = []
			continue
		dirs[:] = [x for x in dirs if x not in ("mnt", "data", "proc", "sys")]
		for f in sorted(files):
			if f.endswith((".json", ".txt")):
				p = os.path.join(root, f)
				if os.path.isfile(p) and os.path.getsize(p) < 256 << 20:
					yield p


def main(argv):
	if len(argv) < 2 or argv[1] in ("-h", "--help"):
		print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
		return 2
	paths = list(scan(argv[2])) if argv[1] == "--scan" and len(argv) == 3 else argv[1:]
	bad = checked = 0
	for p in paths:
		r = load(p)
		if r is None:
			if argv[1] != "--scan":
				print("check_story: '%s' is not an iostorm report" % p, file=sys.stderr)
				return 2
			continue
		checked += 1
		for rule, (w1, t1), (w2, t2) in check(r):
			bad += 1
			print("check_story: %s: %s contradicts itself (%s):\n  %s: %s\n  %s: %s"
			      % (p, "the report", rule, w1, t1, w2, t2), file=sys.stderr)
	if argv[1] == "--scan":
		print("check_story: %d reports, %d contradictions" % (checked, bad))
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
