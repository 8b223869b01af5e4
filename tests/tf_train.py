#!/usr/bin/env python3
"""A real TensorFlow training job for iostorm's tests: a small Keras CNN
trained on the CPU, fed by tf.data from a folder of JPEGs or from TFRecord
shards. It times its own wait for each batch and writes its tally:

  loop steps=N wait_ns=N wall_ns=N wait_share=F files=N bytes=N records=N

files and bytes: what the pipeline read while measured (JPEGs read whole
by read_file; for TFRecord, the shards' bytes as their records add up:
16 bytes of framing each); records, the samples the loop took.

  tf_train.py gen DIR --images N [--classes C] [--size PIXELS]
  tf_train.py pack DIR OUT [--shards N]
  tf_train.py train SRC [--records] [--fit] [--batch B] [--width K]
                        [--parallel N] [--cycle N] [--repeat N] [--cache FILE]
                        [--threads N] [--gate FIFO --ready FILE [--gate-step K]]
                        [--tally FILE] [--files FILE]

gen writes N JPEGs (random pixels, so they decode as real images and do not
compress) into C class folders. pack writes DIR's JPEGs, shuffled, into N
TFRecord shards (tf.train.Example: image bytes, label), the recipe iostorm's
small_file_storm advice gives.

train runs one epoch. From a folder: list_files -> shuffle -> map(read_file
+ decode_jpeg + resize, AUTOTUNE) -> batch -> prefetch(AUTOTUNE); with
--records, SRC's *.tfrecord shards through interleave(TFRecordDataset, 1 MiB
reads) -> shuffle -> map(parse + decode + resize) -> batch -> prefetch.
--repeat N reads the folder N times (one epoch of N passes); --cache FILE
caches the decoded samples in FILE (cache(filename)).

The loop is a custom training loop whose clock runs from its iterator's
making (the pipeline's start: a tf.data graph rewritten and its threads
started, a second under load) to its last step, and counts its waits in
time.perf_counter around next(); --fit trains with Keras fit instead, its
clock tf.timestamp() around the iterator's get_next inside the train
function, which fit runs as a tf.function once a step.

--gate: the loop stops before step K (default 3), waits until the pipeline
has stopped reading ahead (its buffers full), writes its pid to --ready and
waits until FIFO is opened for writing (so a tracer attaches mid-epoch);
the tally counts from there. The pipeline counts its reads in tf.Variables
(files, bytes); a parallel map calls its function on the elements in
order and keeps that order, so the files read after the gate are the
samples taken from the count at the gate on: --files FILE lists them (the
custom loop), one path a line.
"""
import argparse
import glob
import os
import random
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def gen(args):
    rnd = random.Random(1)
    try:
        from PIL import Image
    except ImportError:
        Image = None
        import tensorflow as tf
    for i in range(args.images):
        d = os.path.join(args.dir, "c%03d" % (i % args.classes))
        os.makedirs(d, exist_ok=True)
        px = rnd.randbytes(args.size * args.size * 3)
        path = os.path.join(d, "img%05d.jpg" % i)
        if Image:
            Image.frombytes("RGB", (args.size, args.size), px).save(path, quality=90)
        else:
            img = tf.reshape(tf.constant(list(px), tf.uint8), [args.size, args.size, 3])
            tf.io.write_file(path, tf.io.encode_jpeg(img, quality=90))


def label_of(path):
    import tensorflow as tf
    parts = tf.strings.split(path, os.sep)
    return tf.strings.to_number(tf.strings.substr(parts[-2], 1, 3), tf.int32) % 10


def jpegs(src):
    files = sorted(glob.glob(os.path.join(src, "*", "*.jpg")))
    if not files:
        sys.exit("tf_train: no JPEGs under '%s'" % src)
    return files


def pack(args):
    import tensorflow as tf
    files = jpegs(args.dir)
    random.Random(1).shuffle(files)
    os.makedirs(args.out, exist_ok=True)
    for s in range(args.shards):
        name = os.path.join(args.out, "shard-%05d-of-%05d.tfrecord" % (s, args.shards))
        with tf.io.TFRecordWriter(name) as w:
            for path in files[s::args.shards]:
                with open(path, "rb") as f:
                    img = f.read()
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[img])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(
                        value=[int(label_of(path))]))}))
                w.write(ex.SerializeToString())


def decode(img):
    import tensorflow as tf
    x = tf.io.decode_jpeg(img, channels=3)
    return tf.image.resize(x, [64, 64]) / 255.0


def dataset(args, counts):
    """The input pipeline; counts = (files, bytes) tf.Variables it adds to."""
    import tensorflow as tf
    files, nbytes = counts
    par = tf.data.AUTOTUNE if args.parallel == 0 else args.parallel

    def counted(data, n):
        with tf.control_dependencies([files.assign_add(1), nbytes.assign_add(n)]):
            return tf.identity(data)

    if args.records:
        shards = sorted(glob.glob(os.path.join(args.src, "*.tfrecord")))
        if not shards:
            sys.exit("tf_train: no *.tfrecord under '%s'" % args.src)
        ds = tf.data.Dataset.from_tensor_slices(shards).shuffle(len(shards), seed=1)
        ds = ds.interleave(lambda f: tf.data.TFRecordDataset(f, buffer_size=1 << 20),
                           cycle_length=args.cycle, num_parallel_calls=par)
        feat = {"image": tf.io.FixedLenFeature([], tf.string),
                "label": tf.io.FixedLenFeature([], tf.int64)}

        def load(rec):
            rec = counted(rec, tf.cast(tf.strings.length(rec), tf.int64) + 16)
            ex = tf.io.parse_single_example(rec, feat)
            return decode(ex["image"]), tf.cast(ex["label"], tf.int32), ""
        ds = ds.shuffle(256, seed=1)
    else:
        ds = tf.data.Dataset.list_files(os.path.join(args.src, "*", "*.jpg"),
                                        shuffle=True, seed=1)
        ds = ds.shuffle(1024, seed=1).repeat(args.repeat)

        def load(path):
            data = tf.io.read_file(path)
            data = counted(data, tf.cast(tf.strings.length(data), tf.int64))
            return decode(data), label_of(path), path
    ds = ds.map(load, num_parallel_calls=par)
    if args.cache:
        ds = ds.cache(args.cache)
    return ds.batch(args.batch).prefetch(tf.data.AUTOTUNE)


def model_of(width, wait):
    import keras
    import tensorflow as tf

    class Net(keras.Model):
        """A small CNN whose train function fit runs times get_next."""

        def __init__(self):
            super().__init__()
            self.body = [keras.layers.Conv2D(8 * width, 3, padding="same", activation="relu"),
                         keras.layers.MaxPooling2D(),
                         keras.layers.Conv2D(16 * width, 3, padding="same", activation="relu"),
                         keras.layers.MaxPooling2D(),
                         keras.layers.Conv2D(16 * width, 3, padding="same", activation="relu"),
                         keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(10)]

        def call(self, x):
            for layer in self.body:
                x = layer(x)
            return x

        def make_train_function(self, force=False):
            if self.train_function is not None and not force:
                return self.train_function

            @tf.function(reduce_retracing=True)
            def one_step(iterator):
                t0 = tf.timestamp()
                with tf.control_dependencies([t0]):
                    data = iterator.get_next()
                with tf.control_dependencies(tf.nest.flatten(data)):
                    t1 = tf.timestamp()
                wait.assign_add(t1 - t0)
                return self.distribute_strategy.run(self.train_step, args=(data,))
            self.train_function = one_step
            return one_step

    m = Net()
    m.compile(optimizer=keras.optimizers.SGD(0.01),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return m


def at_gate(args, files):
    """Wait for the pipeline to stop reading ahead, then for the gate."""
    last, still = -1, 0
    while still < 5:
        n = int(files.numpy())
        still = still + 1 if n == last else 0
        last = n
        time.sleep(0.2)
    if args.ready:
        with open(args.ready + ".tmp", "w") as f:
            f.write("%d\n" % os.getpid())
        os.rename(args.ready + ".tmp", args.ready)
    fd = os.open(args.gate, os.O_RDONLY)
    os.read(fd, 1)
    os.close(fd)


class Tally:
    def __init__(self, counts, wait):
        self.counts, self.wait_var = counts, wait
        self.steps = self.records = 0
        self.wait = 0.0
        self.start()

    def start(self):
        self.t0 = time.perf_counter()
        self.n0 = [int(c.numpy()) for c in self.counts]
        self.w0 = float(self.wait_var.numpy())
        self.steps = self.records = 0
        self.wait = 0.0

    def done(self, args, taken=()):
        """Write the tally (and --files) and exit, the iterator still alive:
        its teardown joins the pipeline's threads, which is no step."""
        wall = time.perf_counter() - self.t0
        wait = self.wait + float(self.wait_var.numpy()) - self.w0
        files, nbytes = (int(c.numpy()) - n for c, n in zip(self.counts, self.n0))
        line = ("loop steps=%d wait_ns=%d wall_ns=%d wait_share=%.4f files=%d bytes=%d "
                "records=%d\n" % (self.steps, wait * 1e9, wall * 1e9,
                                  wait / wall if wall else 0, files, nbytes, self.records))
        if args.files:
            with open(args.files, "w") as f:
                f.writelines(os.path.abspath(q.decode()) + "\n" for q in taken if q)
        if args.tally:
            with open(args.tally, "w") as f:
                f.write(line)
        else:
            sys.stdout.write(line)
        sys.stdout.flush()
        os._exit(0)


def fit(args, ds, model, tally, files):
    import keras

    class Gate(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            tally.steps += 1
            tally.records += args.batch
            if args.gate and batch + 2 == args.gate_step:
                at_gate(args, files)
                tally.start()

        def on_epoch_end(self, epoch, logs=None):
            tally.done(args)

    model.fit(ds.map(lambda x, y, p: (x, y)), epochs=1, verbose=0,
              shuffle=False, callbacks=[Gate()])


def custom(args, ds, model, tally, files):
    import tensorflow as tf
    opt = tf.keras.optimizers.SGD(0.01)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function(reduce_retracing=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    it = iter(ds)
    tally.t0 = time.perf_counter()  # the loop starts: the iterator is made, no step yet
    taken, n_gate, gate = [], 0, args.gate
    while True:
        if gate and len(taken) == (args.gate_step - 1) * args.batch:
            gate = None
            at_gate(args, files)
            tally.start()
            n_gate = tally.n0[0]
        t0 = time.perf_counter()
        try:
            x, y, p = next(it)
        except StopIteration:
            break
        tally.wait += time.perf_counter() - t0
        step(x, y)
        taken.extend(p.numpy())
        tally.steps += 1
        tally.records += int(x.shape[0])
    tally.done(args, taken[n_gate:])


def train(args):
    import tensorflow as tf
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    tf.keras.utils.set_random_seed(1)
    counts = (tf.Variable(0, dtype=tf.int64), tf.Variable(0, dtype=tf.int64))
    wait = tf.Variable(0.0, dtype=tf.float64)
    model = model_of(args.width, wait)
    model(tf.zeros([1, 64, 64, 3]))
    ds = dataset(args, counts)
    tally = Tally(counts, wait)
    (fit if args.fit else custom)(args, ds, model, tally, counts[0])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cmd", choices=["gen", "pack", "train"])
    p.add_argument("dir", metavar="DIR|SRC")
    p.add_argument("out", nargs="?")
    p.add_argument("--images", type=int, default=600)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--size", type=int, default=128)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--records", action="store_true")
    p.add_argument("--fit", action="store_true")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--width", type=int, default=1)
    p.add_argument("--parallel", type=int, default=0, help="0: AUTOTUNE")
    p.add_argument("--cycle", type=int, default=4)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--cache")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--gate")
    p.add_argument("--gate-step", type=int, default=3)
    p.add_argument("--ready")
    p.add_argument("--tally")
    p.add_argument("--files")
    args = p.parse_args()
    args.src = args.dir
    if args.cmd == "pack" and not args.out:
        p.error("pack needs OUT")
    {"gen": gen, "pack": pack, "train": train}[args.cmd](args)
    sys.stdout.flush()
    os._exit(0)                     # no interpreter teardown after the loop


if __name__ == "__main__":
    main()
