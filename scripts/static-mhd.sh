#!/bin/sh
# libmicrohttpd for the static iostorm, from Debian's own source package:
# Debian's libmicrohttpd.a is built with HTTPS and needs GnuTLS, whose chain
# (p11-kit) has no static archive; the exporter serves plain HTTP, so this
# build leaves HTTPS out and needs nothing but the C library.
#
# usage: scripts/static-mhd.sh DIR    writes DIR/lib/libmicrohttpd.a and
#                                     DIR/include/microhttpd.h
#
# The source is `apt-get source libmicrohttpd` (deb-src lines:
# scripts/deps.sh --test adds them), Debian's patches applied, built with Debian's
# hardening flags (as its package is) and the build directory mapped out of
# the debug information, so two builds give the same bytes.
set -eu
[ $# = 1 ] && [ -n "$1" ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$(realpath -m "$1")
src=$dir/src
rm -rf "${dir:?}/src" "${dir:?}/lib" "${dir:?}/include"
mkdir -p "$src"
cd "$src"
if ! apt-get source -qq libmicrohttpd >fetch.log 2>&1; then
	cat fetch.log >&2
	echo "static-mhd: cannot fetch Debian's libmicrohttpd source: run scripts/deps.sh --test (it adds deb-src lines)" >&2
	exit 1
fi
cd libmicrohttpd-*/
# The header iostorm compiles against is libmicrohttpd-dev's: the same version.
want=$(sed -n 's/^#define MHD_VERSION \(0x[0-9A-Fa-f]*\).*/\1/p' /usr/include/microhttpd.h)
got=$(sed -n 's/^#define MHD_VERSION \(0x[0-9A-Fa-f]*\).*/\1/p' src/include/microhttpd.h)
if [ "$want" != "$got" ]; then
	echo "static-mhd: source MHD_VERSION $got, /usr/include/microhttpd.h $want" >&2
	exit 1
fi
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
CFLAGS="$(dpkg-buildflags --get CFLAGS) -ffile-prefix-map=$src=mhd"
CPPFLAGS=$(dpkg-buildflags --get CPPFLAGS)
export CFLAGS CPPFLAGS SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-0}"
./configure -q --prefix="$dir" --disable-shared --enable-static --disable-https \
	--without-gnutls --disable-doc --disable-examples --disable-curl --disable-nls \
	>"$src/configure.log" 2>&1 || { tail -n 30 "$src/configure.log" >&2; exit 1; }
grep -q '^#define HTTPS_SUPPORT 1' MHD_config.h && { echo "static-mhd: HTTPS still on" >&2; exit 1; }
make -s -j"$(nproc)" -C src/microhttpd install >"$src/make.log" 2>&1 ||
	{ tail -n 30 "$src/make.log" >&2; exit 1; }
echo "  MHD      $(basename "$PWD") (Debian source, no HTTPS) -> $dir/lib/libmicrohttpd.a"
