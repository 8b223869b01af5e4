#!/usr/bin/python3
"""A real PyTorch training loop for iostorm's tests: a small CNN on CPU over
ImageFolder JPEGs decoded with PIL, fed by a DataLoader. It times its own wait
for each batch (time.perf_counter around next()) and writes one line:

  loop steps=N wait_ns=N wall_ns=N wait_share=F io_ns=N io_share=F
       saves=N save_bytes=N save_ns=N save_share=F asleep_ns=N asleep_share=F

asleep_ns is the part of wait_ns the loop spent off CPU and not waiting for
one: the kernel's own account of the thread (/proc/thread-self/schedstat:
time on CPU and time runnable) taken out of each next(). Under CPU
contention a batch that is ready still costs the loop runnable time in
next(), which a clock around next() counts as waiting for data.

io_ns is the time this process spent in open() + read() of images (so with
--workers 0 the loop's own file I/O, apart from decoding). save_ns is the
loop's own wait on its checkpoints (see --save-every).

  train.py gen DIR --images N [--classes C] [--size PIXELS]
  train.py pack DIR FILE
  train.py train DIR [--workers W] [--batch B] [--width K] [--steps S]
                     [--gate FIFO [--hold-workers]] [--ready FILE] [--tally FILE]
                     [--ddp] [--step-sleep-ms MS] [--mmap FILE]
                     [--epochs E] [--gate-epoch K]
                     [--save-every N --save-dir DIR [--save-mb M]
                      [--save-mode inline|thread|fork]]
                     [--progress-dir DIR] [--log-every-step] [--mpi]

pack writes DIR's JPEGs into one file (an LMDB-like mapped dataset): a count,
then (offset, length, label) per image, then the images. train --mmap FILE
reads that file instead of DIR: each DataLoader worker maps it with
MADV_RANDOM (no readahead) and copies each image out of the mapping, so its
reads are page faults only.

--progress-dir DIR: each DataLoader worker rewrites DIR/worker-ID.progress
(30 bytes: open, write, close) after every sample, as loaders that record
how far they got do: a few bytes written beside its reads.

--log-every-step prints a line to stdout after every step and flushes it,
as a job that logs its loss does: a launcher that relays the job's output
(mpirun, srun) then wakes on each step.

--mpi calls MPI_Init first (Open MPI's libmpi through ctypes, as importing
mpi4py does in a job that storage benchmarks launch with mpirun), before
PyTorch is imported, and MPI_Finalize after the loop: the runtime maps its
shared-memory files under /tmp and /dev/shm and, run without mpirun, starts
its orted daemon.

--ddp makes it one rank of a data-parallel job, as torchrun starts them:
RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT from the environment, gloo
over loopback, a DistributedSampler, the model in DistributedDataParallel
(an all-reduce of the gradients every step). --step-sleep-ms sleeps that
long each step after the backward pass (a slower GPU: the CPU waits).

--save-every N saves a checkpoint every N steps into DIR/ckpt-STEP.pt: the
model's state and M MiB (20) of optimizer-like state, torch.save() into the
open file, then flush and fsync, then close. inline: the loop saves itself
and waits the whole save; thread: a saver thread saves, and the loop joins
the previous save before it starts the next (its wait for the new thread
to start is timed too; its waits for the GIL the saver holds are not:
iostorm counts them as write wait, the clock as step time); fork: a forked
child saves (an async checkpointer), and the loop waits for the previous
child before it forks the next. The last save is waited for inside the
loop's clock.

--gate waits, after the DataLoader's workers exist, until FIFO is opened for
writing (so a tracer can attach with -p first); --ready then names the pid.
With --hold-workers the workers, once forked, read nothing until the gate
is open (they wait for FIFO.open, made then): no file is read partly
before a tracer attached at the gate and partly after.
--epochs runs E epochs (E iterators: the workers are forked again each
epoch), and the gate is taken before epoch K's loop (--gate-epoch, 1): the
loop's clock runs from the gate on, so it covers the epochs a tracer
attached at the gate sees.
After the loop it stops its workers and exits at once, so little but the
loop happens while it is traced.
"""
import argparse
import io
import mmap
import os
import random
import struct
import sys
import time


def gen(args):
    from PIL import Image
    rnd = random.Random(1)
    for i in range(args.images):
        d = os.path.join(args.dir, "c%03d" % (i % args.classes))
        os.makedirs(d, exist_ok=True)
        px = bytes(rnd.getrandbits(8) for _ in range(args.size * args.size * 3))
        img = Image.frombytes("RGB", (args.size, args.size), px)
        img.save(os.path.join(d, "img%05d.jpg" % i), quality=90)


IO_NS = [0]    # time in open() + read() of the images, in this process
HOLD = [None]  # --hold-workers: the file whose existence opens the gate to reads


def hold():
    """In a worker, before its first read: wait until the gate is open."""
    while HOLD[0] and not os.path.exists(HOLD[0]):
        time.sleep(0.005)
    HOLD[0] = None


def load(path):
    """ImageFolder's loader, with the file read timed apart from decoding."""
    from PIL import Image
    hold()
    t0 = time.perf_counter_ns()
    with open(path, "rb") as f:
        data = f.read()
    IO_NS[0] += time.perf_counter_ns() - t0
    return Image.open(io.BytesIO(data)).convert("RGB")


INDEX = struct.Struct("<QIH")


def pack(args):
    """DIR's images, as ImageFolder orders them, into one file."""
    import torchvision.datasets as datasets
    files = datasets.ImageFolder(args.dir).samples
    blobs = []
    for path, label in files:
        with open(path, "rb") as f:
            blobs.append((f.read(), label))
    off = 4 + INDEX.size * len(blobs)
    with open(args.file, "wb") as f:
        f.write(struct.pack("<I", len(blobs)))
        for data, label in blobs:
            f.write(INDEX.pack(off, len(data), label))
            off += len(data)
        for data, _ in blobs:
            f.write(data)


class Mapped:
    """A packed file read through a mapping, opened lazily in each worker."""

    def __init__(self, path, transform):
        self.path, self.transform, self.mm = path, transform, None
        with open(path, "rb") as f:
            n = struct.unpack("<I", f.read(4))[0]
            self.index = [INDEX.unpack(f.read(INDEX.size)) for _ in range(n)]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        from PIL import Image
        hold()
        if self.mm is None:
            with open(self.path, "rb") as f:
                self.mm = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
            self.mm.madvise(mmap.MADV_RANDOM)
        off, n, label = self.index[i]
        data = self.mm[off:off + n]         # page faults: the only reads
        return self.transform(Image.open(io.BytesIO(data)).convert("RGB")), label


class Progress:
    """DATA, each worker rewriting its progress file in DIR (30 bytes) after every sample."""

    def __init__(self, data, dir):
        self.data, self.dir, self.n = data, dir, 0

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        import torch.utils.data as tud
        sample = self.data[i]
        self.n += 1
        w = tud.get_worker_info()
        with open(os.path.join(self.dir, "worker-%d.progress" % (w.id if w else 0)), "w") as f:
            f.write("samples=%-20d\n" % self.n)
        return sample


def save_file(path, state):
    """A checkpoint as training code writes one: save, flush, fsync, close."""
    import torch
    with open(path, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())


def named_save(path, state):
    """save_file() in a thread the kernel names "saver" (PR_SET_NAME), as ps shows it."""
    import ctypes
    ctypes.CDLL(None).prctl(15, b"saver", 0, 0, 0)
    save_file(path, state)


class Saver:
    """Checkpoints every --save-every steps, timed by the loop's own clock."""

    def __init__(self, args):
        import torch
        self.args, self.pending, self.n, self.ns = args, None, 0, 0
        self.blob = torch.ones(args.save_mb * 1024 * 1024 // 4) if args.save_every else None

    def wait(self):
        """Wait for the save in flight (thread, fork): the loop's wait."""
        if self.pending is None:
            return
        t0 = time.perf_counter_ns()
        if self.args.save_mode == "thread":
            self.pending.join()
        else:
            os.waitpid(self.pending, 0)
        self.ns += time.perf_counter_ns() - t0
        self.pending = None

    def step(self, steps, model):
        if not self.args.save_every or steps % self.args.save_every:
            return
        self.wait()
        state = {"model": model.state_dict(), "optimizer": self.blob, "step": steps}
        path = os.path.join(self.args.save_dir, "ckpt-%05d.pt" % steps)
        self.n += 1
        if self.args.save_mode == "inline":
            t0 = time.perf_counter_ns()
            save_file(path, state)
            self.ns += time.perf_counter_ns() - t0
        elif self.args.save_mode == "thread":
            import threading
            self.pending = threading.Thread(target=named_save, args=(path, state))
            t0 = time.perf_counter_ns()
            self.pending.start()        # waits until the saver runs: the save's too
            self.ns += time.perf_counter_ns() - t0
        else:
            pid = os.fork()
            if pid == 0:
                save_file(path, state)
                os._exit(0)
            self.pending = pid

    def bytes(self):
        d = self.args.save_dir
        return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)
                   if f.startswith("ckpt-")) if self.args.save_every else 0


def model_of(width):
    import torch.nn as nn
    return nn.Sequential(
        nn.Conv2d(3, 8 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8 * width, 16 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16 * width, 16 * width, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16 * width, 10))


def gate(args):
    """Wait at --gate (after --ready names the pid), if given."""
    if not args.gate:
        return
    if args.ready:
        with open(args.ready + ".tmp", "w") as f:
            f.write("%d\n" % os.getpid())
        os.rename(args.ready + ".tmp", args.ready)
    fd = os.open(args.gate, os.O_RDONLY)
    os.read(fd, 1)                  # one byte: each rank of a job takes its own
    os.close(fd)
    if args.hold_workers:
        open(args.gate + ".open", "w").close()


def mpi_init():
    """MPI_Init through Open MPI's libmpi: the library, held for MPI_Finalize."""
    import ctypes
    lib = ctypes.CDLL("libmpi.so.40", mode=ctypes.RTLD_GLOBAL)
    if lib.MPI_Init(None, None):
        sys.exit("train.py: MPI_Init failed")
    return lib


def train(args):
    mpi = mpi_init() if args.mpi else None
    import torch
    import torchvision.datasets as datasets
    import torchvision.transforms as T

    torch.set_num_threads(1)
    torch.manual_seed(1)
    if args.hold_workers and args.gate:
        HOLD[0] = args.gate + ".open"   # inherited by the workers it forks
    tf = T.Compose([T.Resize(64), T.ToTensor()])
    data = Mapped(args.mmap, tf) if args.mmap else datasets.ImageFolder(args.dir, tf, loader=load)
    if args.progress_dir:
        data = Progress(data, args.progress_dir)
    sampler = None
    if args.ddp:
        import torch.distributed as dist
        dist.init_process_group("gloo")
        sampler = torch.utils.data.distributed.DistributedSampler(data, seed=1)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch,
                                         shuffle=sampler is None, sampler=sampler,
                                         num_workers=args.workers)
    model = model_of(args.width)
    if args.ddp:
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    saver = Saver(args)
    steps = wait = asleep = longest = 0
    for epoch in range(1, args.epochs + 1):
        it = iter(loader)           # the workers start here (each epoch: not persistent)
        if epoch == args.gate_epoch:
            gate(args)
            steps = wait = asleep = longest = 0   # the loop's clock runs from the gate on
            IO_NS[0] = 0
            t_start = time.perf_counter()
        while args.steps == 0 or steps < args.steps:
            t0 = time.perf_counter()
            s0 = on_cpu_or_runnable_ns()
            try:
                x, y = next(it)
            except StopIteration:
                break
            dt = time.perf_counter() - t0
            wait += dt
            longest = max(longest, dt)
            asleep += max(0.0, dt - (on_cpu_or_runnable_ns() - s0) / 1e9)
            opt.zero_grad()
            loss = loss_fn(model(x) , y % 10)
            loss.backward()
            opt.step()
            if args.step_sleep_ms:
                time.sleep(args.step_sleep_ms / 1000)
            steps += 1
            if args.log_every_step:
                sys.stdout.write("step %d loss %.4f\n" % (steps, loss.item()))
                sys.stdout.flush()
            saver.step(steps, model)
        if epoch < args.epochs:
            del it
    saver.wait()
    wall = time.perf_counter() - t_start
    del it                          # stop the workers now, not at exit
    line = "loop steps=%d wait_ns=%d wall_ns=%d wait_share=%.4f io_ns=%d io_share=%.4f" % (
        steps, wait * 1e9, wall * 1e9, wait / wall if wall else 0,
        IO_NS[0], IO_NS[0] / 1e9 / wall if wall else 0)
    line += " saves=%d save_bytes=%d save_ns=%d save_share=%.4f" % (
        saver.n, saver.bytes(), saver.ns, saver.ns / 1e9 / wall if wall else 0)
    line += " asleep_ns=%d asleep_share=%.4f longest_wait_ns=%d\n" % (
        asleep * 1e9, asleep / wall if wall else 0, longest * 1e9)
    if args.tally:
        with open(args.tally, "w") as f:
            f.write(line)
    else:
        sys.stdout.write(line)
    if mpi:
        sys.stdout.flush()
        mpi.MPI_Finalize()


def on_cpu_or_runnable_ns():
    """This thread's time on CPU plus its time runnable, by the kernel."""
    with open("/proc/thread-self/schedstat") as f:
        cpu, runq = f.read().split()[:2]
    return int(cpu) + int(runq)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cmd", choices=["gen", "pack", "train"])
    p.add_argument("dir")
    p.add_argument("file", nargs="?")
    p.add_argument("--images", type=int, default=600)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--size", type=int, default=128)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--width", type=int, default=1)
    p.add_argument("--steps", type=int, default=0)
    p.add_argument("--gate")
    p.add_argument("--ready")
    p.add_argument("--hold-workers", action="store_true")
    p.add_argument("--tally")
    p.add_argument("--ddp", action="store_true")
    p.add_argument("--step-sleep-ms", type=float, default=0)
    p.add_argument("--mmap")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--gate-epoch", type=int, default=1)
    p.add_argument("--save-every", type=int, default=0)
    p.add_argument("--save-dir")
    p.add_argument("--save-mb", type=int, default=20)
    p.add_argument("--progress-dir")
    p.add_argument("--log-every-step", action="store_true")
    p.add_argument("--mpi", action="store_true")
    p.add_argument("--save-mode", choices=["inline", "thread", "fork"], default="inline")
    args = p.parse_args()
    if args.save_every and not args.save_dir:
        p.error("--save-every needs --save-dir")
    {"gen": gen, "pack": pack, "train": train}[args.cmd](args)
    sys.stdout.flush()
    os._exit(0)                     # no interpreter teardown after the loop


if __name__ == "__main__":
    main()
