# Shared by infra/run, infra/test and infra/ops. Sourced, not run.
# Installs what the local stack needs into project-local folders and starts the moto server.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
LOCAL_DIR="$ROOT/.local"

say() { printf '%s\n' "$*" >&2; }

need() {
  command -v "$1" >/dev/null 2>&1 || { say "error: '$1' is needed but not installed ($2)"; exit 1; }
}

# The toolchain rust-toolchain.toml pins. rustup installs it at the first cargo call where it can
# download; where it cannot (a machine without internet access) but the installed stable toolchain
# is that very version, stable is linked under the pinned name instead of failing.
ensure_toolchain() {
  command -v rustup >/dev/null 2>&1 || return 0
  local pinned home host stable
  pinned="$(sed -n 's/^channel *= *"\(.*\)"/\1/p' "$ROOT/rust-toolchain.toml")"
  home="${RUSTUP_HOME:-$HOME/.rustup}"
  host="$(cd / && rustc -vV 2>/dev/null | sed -n 's/^host: //p')"
  [ -n "$pinned" ] && [ -n "$host" ] || return 0
  [ -e "$home/toolchains/$pinned-$host" ] && return 0
  stable="$home/toolchains/stable-$host"
  if [ -x "$stable/bin/rustc" ] && "$stable/bin/rustc" --version | grep -q "^rustc $pinned "; then
    say "==> linking the installed stable toolchain as $pinned (rust-toolchain.toml)"
    ln -s "$stable" "$home/toolchains/$pinned-$host"
  fi
}

# The moto server in .venv, reinstalled when infra/local/requirements.txt changes.
ensure_moto_venv() {
  need python3 "Python 3.11+ with venv"
  need cargo "the Rust toolchain"
  ensure_toolchain
  local requirements="$ROOT/infra/local/requirements.txt"
  local marker="$VENV/.installed-$(sha256sum "$requirements" | cut -c1-16)"
  if [ ! -f "$marker" ]; then
    say "==> installing the moto server into .venv (once)"
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    rm -f "$VENV"/.installed-*
    touch "$marker"
  fi
}

# The third-party validators the tests run (tests/validators, npm; pinned by its lock file): billet
# documents and webhook signatures.
ensure_validators() {
  need node "Node.js 18+ with npm (the independent validators of billets and webhooks run on it)"
  need npm "npm"
  local dir="$ROOT/tests/validators"
  local marker="$dir/node_modules/.installed-$(sha256sum "$dir/package-lock.json" | cut -c1-16)"
  if [ ! -f "$marker" ]; then
    say "==> installing the independent validators into tests/validators (once)"
    (cd "$dir" && npm ci --silent --no-audit --no-fund)
    touch "$marker"
  fi
}

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

moto_answers() {
  python3 - "$1" <<'PY' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/moto-api/", timeout=1)
PY
}

# Starts the moto server on 127.0.0.1:$1 in the background (pid in MOTO_PID) unless one already
# answers there, and waits until it is ready.
start_moto() {
  local port="$1"
  MOTO_PID=""
  if moto_answers "$port"; then
    say "==> reusing the moto server already on 127.0.0.1:$port"
    return
  fi
  mkdir -p "$LOCAL_DIR"
  "$VENV/bin/python" "$ROOT/infra/local/moto_server.py" -H 127.0.0.1 -p "$port" >"$LOCAL_DIR/moto-$port.log" 2>&1 &
  MOTO_PID=$!
  for _ in $(seq 1 100); do
    moto_answers "$port" && { say "==> moto server on 127.0.0.1:$port (pid $MOTO_PID)"; return; }
    kill -0 "$MOTO_PID" 2>/dev/null || { say "error: the moto server did not start; see $LOCAL_DIR/moto-$port.log"; exit 1; }
    sleep 0.1
  done
  say "error: the moto server did not answer on 127.0.0.1:$port"
  exit 1
}

# Resident memory of the moto server started by start_moto, in MB ("?" when unknown).
moto_memory_mb() {
  local kb
  kb="$(ps -o rss= -p "${MOTO_PID:-0}" 2>/dev/null | tr -d ' ')"
  if [ -n "$kb" ]; then echo $((kb / 1024)); else echo "?"; fi
}

stop_moto() {
  if [ -n "${MOTO_PID:-}" ]; then
    kill "$MOTO_PID" 2>/dev/null || true
    wait "$MOTO_PID" 2>/dev/null || true
  fi
}

# The AWS SDK settings of the local stack: dummy credentials, endpoint on the moto server.
local_aws_env() {
  export AWS_ENDPOINT_URL="http://127.0.0.1:$1"
  export AWS_ACCESS_KEY_ID="local" AWS_SECRET_ACCESS_KEY="local" AWS_REGION="us-east-1" AWS_DEFAULT_REGION="us-east-1"
  export AWS_EC2_METADATA_DISABLED=true
  export TABLE_NAME="${TABLE_NAME:-billing-service}"
}
