/* The options of every mode, one table, and the dispatch to the modes. */
#include "workload.h"

#include <stdarg.h>

struct opts opt = {
	.files = ~0ULL, .min_size = 40960, .max_size = 122880, .seed = 1,
	.threads = 1, .bufsize = 65536, .limit = ~0ULL,
	.order = "random", .style_name = "posix", .shard_size = 256 << 20,
	.readers = 2, .decoders = 2, .batch = 8, .step_ms = 1, .queue = 16, .epochs = 1,
	.times = 5, .seconds = 10, .rate = 200, .file_rate = 50, .rounds = 3, .tag = "shape",
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " gen DIR --files N [--dirs D] [--min-size BYTES]\n"
"           [--max-size BYTES] [--seed S]\n"
"       " PROG " read DIR [--threads T] [--procs P] [--order random|sorted]\n"
"           [--seed S] [--bufsize BYTES] [--style posix|tf|torch] [--limit N]\n"
"           [--gate FIFO] [--tally FILE] [--tally-files] [--cpu-us N]\n"
"       " PROG " scenario DIR [--gate FIFO] [--tally FILE]\n"
"       " PROG " pack DIR --out SHARDDIR [--shard-size BYTES]\n"
"       " PROG " pipeline DIR [--readers N] [--decoders M] [--cpu-us X]\n"
"           [--batch B] [--step-ms Y] [--queue Q] [--order ...] [--seed S]\n"
"           [--limit N] [--names LIST] [--epochs E] [--disk-stat FILE]\n"
"           [--gate FIFO] [--tally FILE]\n"
"       " PROG " mapread FILE --pages N [--threads T] [--gate FIFO] [--tally FILE]\n"
"       " PROG " thread FILE [--times N] [--gate FIFO] [--tally FILE]\n"
"       " PROG " churn DIR [--seconds S] [--rate R] [--file-rate F] [--tally FILE]\n"
"       " PROG " reuse DIR --files N [--rounds R] [--gate FIFO] [--tally FILE]\n"
"       " PROG " shape DIR [--seed S] [--tag NAME] [--plan] [--gate FIFO]\n"
"           [--tally FILE]\n"
"\n"
"gen writes DIR/dNNNN/fNNNNNNN.jpg (default D = N/100, sizes 40960..122880).\n"
"read lists and shuffles the files, waits at the gate, then reads them in P\n"
"processes of T threads. posix: open, read to EOF, close; tf: stat, open,\n"
"pread64 to EOF, close; torch: posix in P (default 4) forked workers.\n"
"--cpu-us N spins N microseconds of CPU after each file (decode-like work).\n"
"scenario runs a fixed mix of every call a tracer must handle on DIR/s.\n"
"pipeline reads the files like tf.data: N reader threads (default 2) read\n"
"whole files into a queue of Q (16), M decoder threads (2) spin X us each\n"
"(--cpu-us, default 0) into a queue of Q, and the main thread, the training\n"
"loop, takes B (8) samples a step and spins Y ms (1). It times its own wait\n"
"for each batch and adds a line to the tally:\n"
"  loop steps=N wait_ns=N wall_ns=N wait_share=F\n"
"--names A,B,... names the decoder threads, in order (as prctl(PR_SET_NAME)).\n"
"--epochs E reads the files E times, in the same order; the loop adds a line\n"
"  epoch N end_ns=T (CLOCK_MONOTONIC) when it has taken epoch N's last sample.\n"
"--disk-stat FILE (a /sys/block/DEV/stat) adds read_sectors=N, the device's\n"
"  own count at that moment, to the epoch lines and the loop line.\n"
"pack concatenates DIR's files, in path order, into SHARDDIR/shard-NNNNN.bin\n"
"of at most --shard-size bytes (default 256 MiB), as TFRecord or tar shards do.\n"
"mapread maps FILE (as LMDB or np.memmap do), madvise(MADV_RANDOM) so no page\n"
"is read ahead (and MADV_NOHUGEPAGE, so khugepaged reads none), waits at\n"
"the gate, then T threads touch N distinct pages in a scattered order (no\n"
"page follows the one before it) and it adds a line:\n"
"  mapped pages=N resident=N (mincore, at the end)\n"
"thread starts a second thread, which waits at the gate, then opens FILE and\n"
"reads it to EOF N (5) times, while the main thread (the leader) waits for it.\n"
"churn starts R (200) short threads a second for S (10) seconds, one in ten\n"
"a process instead; F (50) of them a second write a new 1 KiB file in DIR\n"
"and read it back; each sleeps 1 ms and ends. It adds a line to the tally:\n"
"  churn threads=N procs=N files=N\n"
"reuse makes N files in DIR, r + 1 KiB each in round r (of R, default 3),\n"
"each created (open, write, fstat, close) then read 256 bytes at a time, and\n"
"deletes them and syncs the file system (syncfs: XFS frees inodes in the\n"
"background) before the next round, whose files then get inode numbers the\n"
"file system freed. Its tally has every file's line, and a last line:\n"
"  reuse lives=N reused=N (files whose inode number an earlier round's had)\n"
"shape draws a job from the seed: 1-4 workers (threads or forked processes)\n"
"making, reading (read, pread64, readv, mmap, io_uring, Linux AIO), writing,\n"
"syncing, renaming and unlinking files, and making them again at their name\n"
"(inode numbers reused), in DIR/ROOT/NAME/ (NAME: --tag, default shape) for\n"
"every directory ROOT of DIR (a file system; a FUSE one is only read, its\n"
"files shared); half the shapes are a training loop fed by the workers\n"
"(--reads more reads each, every one followed by cpu_us of work). --plan\n"
"prints the shape and worker lines of the seed's draw (no clocks), runs\n"
"nothing and exits. Its\n"
"tally, one line per life of a file (tests/shapes/run.sh compares them):\n"
"  shape seed=S pid=N workers=N loop=0|1 step_us=N roots=ROOT:FS[:ro],...\n"
"  worker k=N kind=thread|process tid=N ops=N reads=N read=only|mostlyL\n"
"         cpu_us=N progress=0|1 busy_ns=N write_ns=N\n"
"  (L: its favorite read, a hist letter: r read, p pread64, v readv, m mmap,\n"
"  q io_uring, a Linux AIO; progress: a progress file rewritten after each)\n"
"  loop items=N wait_ns=N wall_ns=N wait_share=F runq_ns=N (waiting for a CPU)\n"
"  life fs=FS opens=N reads=N read_bytes=N async_reads=N async_bytes=N\n"
"       writes=N write_bytes=N fsyncs=N mmaps=N size=N (at the end of its\n"
"       last operation) hist=LETTERS now=PATH|- path=PATH (where it was made\n"
"       or found)\n"
"--gate FIFO waits for one byte from FIFO; --tally FILE writes the tally\n"
"there instead of stdout, as (--tally-files adds the file lines):\n"
"  total opens=N open_errors=N reads=N read_bytes=N stats=N closes=N mmaps=N files=N\n"
"        readers=N (read's threads that took a file)\n"
"  file opens=N reads=N read_bytes=N stats=N closes=N mmaps=N path=PATH\n");
}

void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(2);
}

/* ---- options */

enum {
	GEN = 1, READ = 2, SCEN = 4, PACK = 8, PIPE = 16, MAPR = 32, THRD = 64, CHRN = 128,
	REUS = 256, SHAP = 512,
};

static const struct optdef {
	const char *name;
	int cmds;
	char kind;			/* n: number >= min, s: string, f: flag */
	void *val;
	u64 min;
} optdefs[] = {
	{ "files", GEN | REUS, 'n', &opt.files, 0 },
	{ "rounds", REUS, 'n', &opt.rounds, 1 },
	{ "dirs", GEN, 'n', &opt.dirs, 1 },
	{ "min-size", GEN, 'n', &opt.min_size, 0 },
	{ "max-size", GEN, 'n', &opt.max_size, 0 },
	{ "seed", GEN | READ | PIPE | SHAP, 'n', &opt.seed, 0 },
	{ "tag", SHAP, 's', &opt.tag, 0 },
	{ "plan", SHAP, 'f', &opt.plan, 0 },
	{ "threads", READ | MAPR, 'n', &opt.threads, 1 },
	{ "pages", MAPR, 'n', &opt.pages, 1 },
	{ "procs", READ, 'n', &opt.procs, 1 },
	{ "bufsize", READ, 'n', &opt.bufsize, 1 },
	{ "limit", READ | PIPE, 'n', &opt.limit, 0 },
	{ "order", READ | PIPE, 's', &opt.order, 0 },
	{ "style", READ, 's', &opt.style_name, 0 },
	{ "gate", READ | SCEN | PIPE | MAPR | THRD | REUS | SHAP, 's', &opt.gate, 0 },
	{ "tally", READ | SCEN | PIPE | MAPR | THRD | CHRN | REUS | SHAP, 's', &opt.tally, 0 },
	{ "seconds", CHRN, 'n', &opt.seconds, 1 },
	{ "rate", CHRN, 'n', &opt.rate, 1 },
	{ "file-rate", CHRN, 'n', &opt.file_rate, 0 },
	{ "times", THRD, 'n', &opt.times, 1 },
	{ "tally-files", READ | SCEN, 'f', &opt.tally_files, 0 },
	{ "cpu-us", READ | PIPE, 'n', &opt.cpu_us, 0 },
	{ "readers", PIPE, 'n', &opt.readers, 1 },
	{ "decoders", PIPE, 'n', &opt.decoders, 1 },
	{ "batch", PIPE, 'n', &opt.batch, 1 },
	{ "step-ms", PIPE, 'n', &opt.step_ms, 0 },
	{ "epochs", PIPE, 'n', &opt.epochs, 1 },
	{ "queue", PIPE, 'n', &opt.queue, 1 },
	{ "names", PIPE, 's', &opt.names, 0 },
	{ "disk-stat", PIPE, 's', &opt.disk_stat, 0 },
	{ "out", PACK, 's', &opt.out, 0 },
	{ "shard-size", PACK, 'n', &opt.shard_size, 1 },
	{ NULL },
};

static void set_opt(const struct optdef *d, const char *arg)
{
	unsigned long long v;
	char *end;

	if (d->kind == 's') {
		*(const char **)d->val = arg;
		return;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || v < d->min)
		usage_error("invalid --%s '%s'", d->name, arg);
	*(u64 *)d->val = v;
}

/* Parse the options of command cmd (--opt ARG or --opt=ARG); returns DIR. */
static const char *parse(int cmd, char **argv)
{
	const struct optdef *d;
	const char *dir = NULL, *s, *eq;

	for (; *argv; argv++) {
		s = *argv;
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			usage(stdout);
			exit(0);
		}
		if (s[0] != '-' || !s[1]) {
			if (dir)
				usage_error("too many operands");
			dir = s;
			continue;
		}
		eq = strchrnul(s, '=');
		for (d = optdefs; d->name; d++)
			if ((d->cmds & cmd) && s[1] == '-' &&
			    !strncmp(s + 2, d->name, eq - s - 2) &&
			    !d->name[eq - s - 2])
				break;
		if (!d->name)
			usage_error("unknown option '%.*s'", (int)(eq - s), s);
		if (d->kind == 'f' && *eq)
			usage_error("option '--%s' takes no argument", d->name);
		if (d->kind == 'f')
			*(int *)d->val = 1;
		else if (*eq || argv[1])
			set_opt(d, *eq ? eq + 1 : *++argv);
		else
			usage_error("option '--%s' needs an argument", d->name);
	}
	if (!dir)
		usage_error("missing DIR");
	return dir;
}

static void check_read_opts(void)
{
	static const char *const styles[] = { "posix", "tf", "torch" };

	for (opt.style = 0; opt.style < STYLE_N; opt.style++)
		if (!strcmp(opt.style_name, styles[opt.style]))
			break;
	if (opt.style == STYLE_N)
		usage_error("invalid --style '%s'", opt.style_name);
	if (strcmp(opt.order, "random") && strcmp(opt.order, "sorted"))
		usage_error("invalid --order '%s'", opt.order);
	if (opt.threads > MAX_THREADS)
		usage_error("--threads is above %d", MAX_THREADS);
	if (opt.style == STYLE_TORCH && opt.threads > 1)
		usage_error("--style torch workers are single-threaded");
	if (!opt.procs)
		opt.procs = opt.style == STYLE_TORCH ? 4 : 1;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "", *dir;

	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "gen")) {
		dir = parse(GEN, argv + 2);
		if (opt.files == ~0ULL)
			usage_error("gen needs --files N");
		if (opt.min_size > opt.max_size)
			usage_error("--min-size is above --max-size");
		return cmd_gen(dir);
	}
	if (!strcmp(cmd, "read")) {
		dir = parse(READ, argv + 2);
		check_read_opts();
		return cmd_read(dir);
	}
	if (!strcmp(cmd, "scenario"))
		return cmd_scenario(parse(SCEN, argv + 2));
	if (!strcmp(cmd, "pack"))
		return cmd_pack(parse(PACK, argv + 2));
	if (!strcmp(cmd, "mapread")) {
		dir = parse(MAPR, argv + 2);
		if (!opt.pages)
			usage_error("mapread needs --pages N");
		return cmd_mapread(dir);
	}
	if (!strcmp(cmd, "thread"))
		return cmd_thread(parse(THRD, argv + 2));
	if (!strcmp(cmd, "churn"))
		return cmd_churn(parse(CHRN, argv + 2));
	if (!strcmp(cmd, "reuse")) {
		dir = parse(REUS, argv + 2);
		if (opt.files == ~0ULL || !opt.files)
			usage_error("reuse needs --files N (N > 0)");
		return cmd_reuse(dir);
	}
	if (!strcmp(cmd, "shape")) {
		dir = parse(SHAP, argv + 2);
		if (!*opt.tag || strchr(opt.tag, '/'))
			usage_error("invalid --tag '%s'", opt.tag);
		return cmd_shape(dir);
	}
	if (!strcmp(cmd, "pipeline")) {
		dir = parse(PIPE, argv + 2);
		if (strcmp(opt.order, "random") && strcmp(opt.order, "sorted"))
			usage_error("invalid --order '%s'", opt.order);
		return cmd_pipeline(dir);
	}
	if (!*cmd)
		usage_error("missing command");
	usage_error("unknown command '%s'", cmd);
}
