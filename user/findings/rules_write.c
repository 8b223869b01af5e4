// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rule on the training loop's wait on its writes (write_wait): the
 * checkpoint saves it makes itself, or waits for (a saver thread it joins,
 * a forked checkpointer it waits for). Goodput accounting counts a save's
 * time as lost training time, apart from the wait for data. See
 * docs/findings.md.
 */
#include <stdio.h>
#include "findings/rules.h"

#define MIB	(1024.0 * 1024.0)

/*
 * "6 saves of 20 MiB, 1.0s each at 20 MiB/s, to /mnt/ckpt", or what was
 * written when no file was a save (save_bytes written to it at least).
 */
static void saves_words(const struct evidence *e, double save_bytes, char *buf, size_t len)
{
	double wait_s = e->write_share * e->write_wall_s;
	char n[32], size[32], each[32], rate[32];

	if (!e->saves) {
		snprintf(buf, len, "%s written in %s calls, no save of %s or more",
			 units__bytes(size, sizeof(size), e->write_bytes),
			 units__count(n, sizeof(n), e->writes),
			 units__bytes(each, sizeof(each), save_bytes));
		return;
	}
	snprintf(buf, len, "%s %s of %s, %s each at %s MiB/s%s%s",
		 units__count(n, sizeof(n), e->saves), e->saves == 1 ? "save" : "saves",
		 units__bytes(size, sizeof(size), (double)e->save_bytes / e->saves),
		 units__us(each, sizeof(each), wait_s / e->saves * 1e6),
		 units__num(rate, sizeof(rate), e->save_s > 0 ? e->save_bytes / MIB / e->save_s : 0),
		 e->save_dir[0] ? ", to " : "", e->save_dir);
}

static void write_advice(const struct evidence *e, enum severity sev, struct finding *f)
{
	if (sev == SEV_OK) {
		say(f->advice, sizeof(f->advice),
		    "the saves cost the loop little: nothing to do while the steps between "
		    "two saves outlast a save");
	} else if (e->write_own_share >= e->write_writer_share) {
		say(f->advice, sizeof(f->advice),
		    "the loop saves in line: each second of a save is a second it does not "
		    "train. Save asynchronously (a writer thread, or torch.distributed."
		    "checkpoint's async_save), so the loop goes on while the state is "
		    "written; or write to local disk and copy to the shared store in the "
		    "background; or save less often, or sharded across ranks (each writes "
		    "its part)");
	} else {
		say(f->advice, sizeof(f->advice),
		    "the loop waits for its saver (a thread it joins, a process it waits "
		    "for): a save takes longer than the steps between two saves. Save less "
		    "often, or smaller (sharded across ranks), or to faster storage (local "
		    "disk, then copy to the shared store in the background)");
	}
}

int rule__write_wait(const struct evidence *e, const double *th, struct finding *f)
{
	enum severity sev = e->write_share >= th[TH_WRITE_WAIT_HIGH] ? SEV_HIGH :
			    e->write_share >= th[TH_WRITE_WAIT_WARN] ? SEV_WARN : SEV_OK;
	char buf[NBUF][32], saves[256];

	/* A loop that only logs, and hardly waits on it: nothing to say. */
	if (!e->have_write_wait || (sev == SEV_OK && !e->saves))
		return 0;
	finding_init(f, "write_wait", sev, sev == SEV_OK ? "saves do not stall the loop" :
		     "waits on checkpoint writes", sev == SEV_OK ? "" : "save asynchronously");
	saves_words(e, th[TH_SAVE_BYTES], saves, sizeof(saves));
	say(f->summary, sizeof(f->summary),
	    "the training loop%s%s%s waits on %s %s of its time (%s)",
	    e->write_comm[0] ? " (" : "", e->write_comm, e->write_comm[0] ? ")" : "",
	    e->saves ? "checkpoint writes" : "its writes", units__pct(B(0), e->write_share), saves);
	write_advice(e, sev, f);
	fig(f, "write_share", e->write_share, "fraction");
	fig(f, "own_write_share", e->write_own_share, "fraction");
	fig(f, "writer_wait_share", e->write_writer_share, "fraction");
	fig(f, "data_share", e->write_data_share, "fraction");
	fig(f, "wall_s", e->write_wall_s, "s");
	fig(f, "saves", e->saves, "saves");
	fig(f, "save_files", e->save_files, "files");
	fig(f, "save_bytes", e->save_bytes, "bytes");
	fig(f, "save_s", e->save_s, "s");
	fig(f, "write_bytes", e->write_bytes, "bytes");
	return 1;
}
