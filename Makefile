# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# iostorm: build, test, check, install, demo. `make V=1` shows the commands.
#
# Two halves, as bpftool's bootstrap build: libiostorm-core.a (user/model,
# findings, report, prom, diff, html, lib) is compiled without the skeleton on its
# include path and needs only a C compiler, jansson and libmicrohttpd, so
# `make unit` runs anywhere; iostorm adds user/collect and user/run, the BPF
# object (clang, bpftool) and libbpf. `make layers` checks which folder may
# include which (scripts/check-layers.sh).

OUTPUT ?= .output
PREFIX ?= /usr/local
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
CC ?= cc
IOSTORM_VERSION := 0.2.0

ARCH := $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')
VMLINUX := vmlinux/$(ARCH)/vmlinux.h

LIBBPF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libbpf 2>/dev/null)
LIBBPF_LIBS := $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null || echo -lbpf)
JANSSON_LIBS := $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null || echo -ljansson)
MHD_LIBS := $(shell $(PKG_CONFIG) --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)

# System include dirs for the BPF target come after ours (-idirafter), so
# clang finds asm/types.h and friends without picking up host headers first.
# Recursive (=): only a BPF build runs clang for them.
CLANG_BPF_SYS_INCLUDES = $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
CORE_DIRS := model findings report prom diff html lib
CORE_SRCS := $(foreach d,$(CORE_DIRS),$(wildcard user/$(d)/*.c))
CORE_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(CORE_SRCS))
TRACE_SRCS := $(wildcard user/collect/*.c user/run/*.c) user/main.c
TRACE_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(TRACE_SRCS))
CORE_LIB := $(OUTPUT)/libiostorm-core.a
DEGRADE := $(OUTPUT)/degrade
UNIT_SRCS := $(wildcard tests/unit/*.c tests/unit/*/*.c)
WORKLOAD_SRCS := $(wildcard tests/workload/*.c)
WORKLOAD_OBJS := $(patsubst tests/%.c,$(OUTPUT)/tests/%.o,$(WORKLOAD_SRCS))

CFLAGS ?= -g -O2
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE \
	  -DIOSTORM_VERSION='"$(IOSTORM_VERSION)"' -Ibpf -Iuser -MMD -MP
# Only collect/ and run/ see the skeleton and libbpf's headers.
TRACE_CFLAGS := -I$(OUTPUT) $(LIBBPF_CFLAGS)
CORE_LDLIBS := $(JANSSON_LIBS) $(MHD_LIBS) -lm -lpthread
LDLIBS := $(LIBBPF_LIBS) -lelf -lz $(CORE_LDLIBS)
BPF_CFLAGS = -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
	     -Ibpf -Ivmlinux/$(ARCH) $(CLANG_BPF_SYS_INCLUDES) -MMD -MP
# Reproducible: no build directory in the debug information or the BTF.
CFLAGS += -ffile-prefix-map=$(CURDIR)=.
BPF_CFLAGS += -ffile-prefix-map=$(CURDIR)=.

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all test test-fallbacks vm-test soak check unit layers fuzz install clean demo bench \
	bench-refs
.PHONY: static dist image FORCE

# ---- shipping: `make static`, `make dist`, `make image` (docs/install.md) ----
#
# STATIC=1 links ./iostorm with nothing loaded at run time: libbpf, libelf,
# zlib and jansson from Debian's static archives, libmicrohttpd built from
# Debian's source package without HTTPS (scripts/static-mhd.sh: Debian's .a
# needs GnuTLS, whose p11-kit has no static archive), glibc. The mode is
# remembered in $(OUTPUT)/link-mode, so switching relinks. `make static` is
# `make STATIC=1 iostorm`.
STATIC ?= 0
MHD_STATIC := $(OUTPUT)/static/mhd/lib/libmicrohttpd.a
LINK_DEPS := $(OUTPUT)/link-mode
ifeq ($(STATIC),1)
LINK_MODE := static
LINK_DEPS += $(MHD_STATIC)
LDFLAGS += -static
LDLIBS = $(shell $(PKG_CONFIG) --static --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz) \
	 $(JANSSON_LIBS) -lm -lpthread
else
LINK_MODE := dynamic
endif
# The commit --version names (run/version.c alone is compiled with it).
IOSTORM_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
	git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
DIST_NAME := iostorm-$(IOSTORM_VERSION)-$(shell uname -m)-linux
IMAGE ?= localhost/iostorm:$(IOSTORM_VERSION)

all: iostorm $(OUTPUT)/iostorm-workload $(OUTPUT)/iostorm-fusefs $(OUTPUT)/iostorm-uring \
	$(DEGRADE)/iostorm

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/tests $(OUTPUT)/bench:
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# One object from every BPF file, so one skeleton: one load, shared maps.
$(OUTPUT)/iostorm.bpf.o: $(BPF_OBJS)
	$(call msg,LINK-BPF,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(OUTPUT)/iostorm.skel.h: $(OUTPUT)/iostorm.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name iostorm_bpf > $@

$(CORE_OBJS): $(OUTPUT)/user/%.o: user/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(TRACE_OBJS): $(OUTPUT)/user/%.o: user/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(TRACE_CFLAGS) -c $< -o $@

# Only collect/ loads BPF: it alone needs the skeleton.
$(filter $(OUTPUT)/user/collect/%,$(TRACE_OBJS)): $(OUTPUT)/iostorm.skel.h

$(CORE_LIB): $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

iostorm: $(TRACE_OBJS) $(CORE_LIB) $(LINK_DEPS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(filter %.o %.a,$^) $(LDLIBS) -o $@

# The test workload (tests/workload/: one file per mode).
$(WORKLOAD_OBJS): $(OUTPUT)/tests/%.o: tests/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -c $< -o $@

$(OUTPUT)/iostorm-workload: $(WORKLOAD_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -pthread $^ -o $@

# The FUSE test file system: libfuse3's low-level API (tests/e2e/test_fuse.sh).
FUSE3_CFLAGS := $(shell $(PKG_CONFIG) --cflags fuse3 2>/dev/null)
FUSE3_LIBS := $(shell $(PKG_CONFIG) --libs fuse3 2>/dev/null || echo -lfuse3)

$(OUTPUT)/iostorm-fusefs: tests/fusefs.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(FUSE3_CFLAGS) -pthread $< $(FUSE3_LIBS) -o $@

# The io_uring test loader: liburing (tests/e2e/test_async.sh).
$(OUTPUT)/iostorm-uring: tests/uring.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -luring -o $@

# A build whose one extra program (tests/bpf/missing_field.bpf.c) reads a
# field no kernel has: the block layer must go unmeasured, with the reason,
# and every other layer trace (tests/e2e/test_degrade.sh). Only collect/
# sees the skeleton, so only it is compiled again.
DEGRADE_COLLECT := $(patsubst user/%.c,$(DEGRADE)/user/%.o,$(wildcard user/collect/*.c))

$(DEGRADE)/missing_field.bpf.o: tests/bpf/missing_field.bpf.c $(VMLINUX)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(DEGRADE)/iostorm.bpf.o: $(BPF_OBJS) $(DEGRADE)/missing_field.bpf.o
	$(call msg,LINK-BPF,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(DEGRADE)/iostorm.skel.h: $(DEGRADE)/iostorm.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name iostorm_bpf > $@

$(DEGRADE_COLLECT): $(DEGRADE)/user/%.o: user/%.c $(DEGRADE)/iostorm.skel.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -I$(DEGRADE) $(LIBBPF_CFLAGS) -c $< -o $@

$(DEGRADE)/iostorm: $(DEGRADE_COLLECT) $(filter-out $(OUTPUT)/user/collect/%,$(TRACE_OBJS)) \
		    $(CORE_LIB) $(LINK_DEPS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(filter %.o %.a,$^) $(LDLIBS) -o $@

# The unit tests link the core only: no clang, bpftool or libbpf needed.
$(OUTPUT)/unit-tests: $(UNIT_SRCS) $(CORE_LIB) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $(UNIT_SRCS) $(CORE_LIB) $(CORE_LDLIBS) -o $@

unit: $(OUTPUT)/unit-tests
	$(Q)$(OUTPUT)/unit-tests

layers:
	$(Q)scripts/check-layers.sh

# The first tier, on this kernel (about 15 minutes on 2 CPUs): unit and CLI
# tests (no root), the BPF and end-to-end tests (they skip, and say so,
# without root or BTF), then the exact-count tests again on the code paths
# older kernels take, forced here. The second tier, the booted kernels, is
# `make vm-test`; CI (.ci/run) runs both.
FALLBACKS ?= core_read,block_rq,prev_state,page_arg
test: all $(OUTPUT)/unit-tests
	$(Q)FALLBACKS=$(FALLBACKS) tests/run.sh --fallbacks

# The forced paths alone (docs/kernels.md).
test-fallbacks: all
	$(Q)IOSTORM_FALLBACKS=$(FALLBACKS) tests/run.sh exact

# Debian's 6.1, 6.12 (bookworm) and 7.2 (sid) kernels booted under qemu
# (TCG), this build checked inside each against the kernel's own counts,
# and bullseye's 5.10 for the clear refusal below the floor
# (docs/vm-tests.md). The kernels are cached in
# $${IOSTORM_VM_CACHE:-/var/cache/iostorm-vm}, past `make clean`.
# Guests run side by side, VM_JOBS at once (each TCG guest is one host
# thread; default: the CPUs online). `make vm-test KERNELS=6.12` boots one;
# `make vm-test KVER=... SUITE=...` any other Debian kernel, for a look.
KERNELS ?= 6.1 6.12 7.2 5.10
ifneq ($(KVER),)
KERNELS := $(KVER)@$(or $(SUITE),bookworm)
endif
vm-test: all
	$(Q)$(if $(VM_JOBS),IOSTORM_VM_JOBS=$(VM_JOBS) )scripts/vm/test.sh $(KERNELS)

# The differential harness, by hand (tests/shapes/run.sh; `make test` replays
# tests/shapes/seeds and three new seeds): SOAK_SEEDS new random job shapes
# (default 100, about 4 s each on 2 CPUs), or as many as SOAK_SECONDS allow,
# each run under iostorm and under strace and compared with the workload's
# tally; a seed that fails is appended to tests/shapes/seeds, and its runs
# are kept. SOAK_STRICT=1 fails the known issues' differences too.
SOAK_SEEDS ?= 100
soak: all
	$(Q)tests/shapes/run.sh $(if $(SOAK_SECONDS),--duration $(SOAK_SECONDS),--new $(SOAK_SEEDS)) \
		$(if $(filter 1,$(SOAK_STRICT)),--strict) --keep tests/shapes/seeds

# libFuzzer targets (tests/fuzz/*.c) under ASan and UBSan, built from the
# core's sources (and run/options.c) with clang; `make fuzz` runs each for
# FUZZ_RUNS inputs from its committed corpus (tests/fuzz/<target>/), new
# inputs going to a scratch directory. Part of `make check`, not `make test`.
FUZZ_CC ?= clang
FUZZ_RUNS ?= 20000
FUZZ_TARGETS := diff_load options prom_text
FUZZ_BINS := $(FUZZ_TARGETS:%=$(OUTPUT)/fuzz/fuzz-%)
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wno-string-plus-int \
	       -std=gnu11 -D_GNU_SOURCE -DIOSTORM_VERSION='"$(IOSTORM_VERSION)"' -Ibpf -Iuser

$(OUTPUT)/fuzz:
	$(Q)mkdir -p $@

$(OUTPUT)/fuzz/fuzz-%: tests/fuzz/%.c $(CORE_SRCS) user/run/options.c | $(OUTPUT)/fuzz
	$(call msg,FUZZ-CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $^ $(CORE_LDLIBS) -o $@

fuzz: $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		new=$$(mktemp -d) || exit 1; \
		echo "  FUZZ     $$t: $(FUZZ_RUNS) runs"; \
		$(OUTPUT)/fuzz/fuzz-$$t -runs=$(FUZZ_RUNS) -seed=1 -close_fd_mask=3 \
			-max_len=131072 -dict=tests/fuzz/$$t.dict "$$new" tests/fuzz/$$t \
			>$(OUTPUT)/fuzz/$$t.log 2>&1; rc=$$?; rm -rf "$$new"; \
		tail -n 1 $(OUTPUT)/fuzz/$$t.log; \
		[ $$rc = 0 ] || { tail -n 40 $(OUTPUT)/fuzz/$$t.log; exit 1; }; \
	done

check: layers test fuzz
	$(Q)cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--suppress=missingIncludeSystem -Ibpf -Iuser user/

install: all
	install -D -m 0755 iostorm $(DESTDIR)$(PREFIX)/sbin/iostorm
	install -D -m 0644 docs/iostorm.8 $(DESTDIR)$(PREFIX)/share/man/man8/iostorm.8
	install -D -m 0644 scripts/iostorm.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/iostorm

demo: iostorm $(OUTPUT)/iostorm-workload
	$(Q)scripts/demo.sh

# The references `scripts/bench.sh --compare` sets iostorm against.
BENCH_REFS := $(OUTPUT)/bench/empty.bpf.o $(OUTPUT)/bench/minimal.bpf.o \
	      $(OUTPUT)/bench/blocks.bpf.o $(OUTPUT)/bench/bench-load

$(OUTPUT)/bench/%.bpf.o: scripts/bench/%.bpf.c $(VMLINUX) | $(OUTPUT)/bench
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/bench/bench-load: scripts/bench/load.c | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LIBBPF_LIBS) -lelf -lz -o $@

bench-refs: $(BENCH_REFS)

bench: all bench-refs
	$(Q)scripts/bench.sh --compare

# ---- shipping (the variables are above) ----
VERSION_OBJ := $(OUTPUT)/user/run/version.o
$(VERSION_OBJ): CFLAGS += -DIOSTORM_COMMIT='"$(IOSTORM_COMMIT)"'
$(VERSION_OBJ): $(OUTPUT)/commit

# Rewritten only when their content changes: what depends on them is
# rebuilt when the commit or the link mode changed, not on every make.
$(OUTPUT)/commit: FORCE | $(OUTPUT)
	$(Q)echo '$(IOSTORM_COMMIT)' | cmp -s - $@ || echo '$(IOSTORM_COMMIT)' >$@
$(OUTPUT)/link-mode: FORCE | $(OUTPUT)
	$(Q)echo '$(LINK_MODE)' | cmp -s - $@ || echo '$(LINK_MODE)' >$@

$(MHD_STATIC):
	$(call msg,MHD,$@)
	$(Q)scripts/static-mhd.sh $(OUTPUT)/static/mhd

static:
	$(Q)$(MAKE) --no-print-directory STATIC=1 iostorm
	$(Q)scripts/ship.sh check-static iostorm

# The release tarball, byte for byte the same from the same commit
# (scripts/ship.sh: SOURCE_DATE_EPOCH from the commit, sorted, owners 0,
# gzip -n). Its binary is the static one.
dist: static
	$(Q)scripts/ship.sh dist $(DIST_NAME) $(OUTPUT)/dist

# The container image: FROM scratch, the static binary its entrypoint,
# built by podman with no registry (docs/deploy/Containerfile).
image: static
	$(Q)scripts/ship.sh image $(IMAGE) $(OUTPUT)/image

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) iostorm $(DIST_NAME).tar.gz

-include $(wildcard $(OUTPUT)/bpf/*.d $(OUTPUT)/user/*.d $(OUTPUT)/user/*/*.d $(OUTPUT)/bench/*.d \
	$(DEGRADE)/*.d $(DEGRADE)/user/*/*.d $(OUTPUT)/tests/workload/*.d)
