#!/bin/sh
# Regenerate vmlinux/<arch>/vmlinux.h from the running kernel's BTF. The
# committed header only has to contain the types iostorm uses: CO-RE
# relocates every field access to the kernel it runs on.
set -eu
arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
out="$(dirname "$0")/../vmlinux/$arch/vmlinux.h"
mkdir -p "$(dirname "$out")"
bpftool btf dump file /sys/kernel/btf/vmlinux format c > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
