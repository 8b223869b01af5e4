#!/bin/sh
# tf-venv.sh: the TensorFlow iostorm's tests run (tests/tf_train.py), in a
# virtual environment of Debian's Python (python3-venv), never the system's
# Python: tensorflow-cpu and its packages pinned in tests/tf-requirements.txt,
# from PyPI through pip.
#
# Usage: scripts/tf-venv.sh [--print]
#   --print   print the venv's directory if it is ready (exit 1 if not)
#
# The venv is $IOSTORM_TF_VENV (default /var/cache/iostorm-tf/venv), the
# wheels are kept in $IOSTORM_TF_CACHE (default /var/cache/iostorm-tf/wheels)
# so that a second set-up or a CI run on the same machine installs offline
# (~330 MB of wheels, ~1.6 GB installed). Idempotent: a venv whose stamp
# matches the pins is left alone (a second or so); a changed pin rebuilds it.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
req=$root/tests/tf-requirements.txt
venv=${IOSTORM_TF_VENV:-/var/cache/iostorm-tf/venv}
wheels=${IOSTORM_TF_CACHE:-/var/cache/iostorm-tf/wheels}
py=/usr/bin/python3

# The pins and the interpreter they were installed for.
stamp=$( (cat "$req"; "$py" -c 'import sys; print(sys.version)') | sha256sum | cut -c1-16)

ready() {
	[ -x "$venv/bin/python" ] && [ "$(cat "$venv/.iostorm-stamp" 2>/dev/null)" = "$stamp" ]
}

if [ "${1:-}" = --print ]; then
	ready && echo "$venv" && exit 0
	exit 1
fi
[ $# = 0 ] || { echo "tf-venv: unknown argument '$1' (use --print, or nothing)" >&2; exit 2; }
if ready; then
	echo "tf-venv: ready ($venv)"
	exit 0
fi
"$py" -c 'import venv, ensurepip' 2>/dev/null ||
	{ echo "tf-venv: $py cannot make a venv: install python3-venv" >&2; exit 1; }
mkdir -p "$wheels" "$(dirname "$venv")"

# One set-up at a time (a CI run and a developer's on the same machine).
exec 9>"$(dirname "$venv")/.tf-venv.lock"
flock 9
ready && { echo "tf-venv: ready ($venv)"; exit 0; }

t0=$(date +%s)
rm -rf "$venv"
"$py" -m venv "$venv"
pip="$venv/bin/python -m pip --disable-pip-version-check -q"
# Offline from the kept wheels when they are all there, else fetch them.
if ! $pip install --no-index --find-links "$wheels" -r "$req" 2>/dev/null; then
	echo "tf-venv: fetching the wheels of tests/tf-requirements.txt into $wheels"
	$pip download -d "$wheels" -r "$req"
	$pip install --no-index --find-links "$wheels" -r "$req"
fi
"$venv/bin/python" -c 'import tensorflow' 2>/dev/null ||
	{ echo "tf-venv: tensorflow does not import in $venv" >&2; exit 1; }
echo "$stamp" >"$venv/.iostorm-stamp"
echo "tf-venv: installed tensorflow-cpu in $venv ($(($(date +%s) - t0)) s)"
