# Sourced by scripts/demo and scripts/test: the repo root, `fail`, `use_venv`, which picks
# the virtualenv (the active one, else .venv here, created on first use), installs
# requirements.lock and mathjudge into it, and puts it first on PATH (pip skips what is
# already installed, so a re-run takes seconds), and `how_to_use`, which prints the lines that
# put that mathjudge on PATH in the user's own shell.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT="scripts/$(basename "$0")"
cd "$ROOT"

fail() {
  echo "$SCRIPT: $*" >&2
  exit 1
}

use_venv() {
  local venv base
  if [ -n "${VIRTUAL_ENV:-}" ]; then
    venv="$VIRTUAL_ENV"
  else
    venv="$ROOT/.venv"
    if [ ! -x "$venv/bin/python" ]; then
      base="${PYTHON:-python3}"
      command -v "$base" >/dev/null \
        || fail "no $base on PATH: install Python 3.11 or newer (or set PYTHON)"
      "$base" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || fail "$base is $("$base" -V 2>&1); mathjudge needs Python 3.11 or newer (set PYTHON)"
      echo "$SCRIPT: creating $venv" >&2
      "$base" -m venv "$venv" || fail "could not create $venv (Debian: apt-get install python3-venv)"
    fi
  fi
  [ -x "$venv/bin/python" ] || fail "no python in the virtualenv $venv"
  echo "$SCRIPT: installing requirements.lock and mathjudge into $venv" >&2
  "$venv/bin/python" -m pip install --quiet --require-hashes -r requirements.lock \
    || fail "pip could not install requirements.lock (see its message above)"
  "$venv/bin/python" -m pip install --quiet --no-deps --no-build-isolation -e . \
    || fail "pip could not install mathjudge itself (see its message above)"
  export VIRTUAL_ENV="$venv"
  export PATH="$venv/bin:$PATH"
}

how_to_use() {
  local activate="$VIRTUAL_ENV/bin/activate"
  [ "$VIRTUAL_ENV" = "$ROOT/.venv" ] && activate=".venv/bin/activate"
  echo
  echo "$SCRIPT: mathjudge is installed in $VIRTUAL_ENV; to use it from this shell, run:"
  echo "  . $activate"
  if [ -n "${MATHJUDGE_MIRROR:-}" ]; then
    echo "  export MATHJUDGE_MIRROR=$MATHJUDGE_MIRROR   # else commands download their sources"
  fi
}
