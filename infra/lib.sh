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

# A Python venv at $1 with the requirements file $2 installed, reinstalled when the file changes
# ($3 names it in the one line said while installing).
ensure_venv() {
  local venv="$1" requirements="$2" what="$3"
  need python3 "Python 3.11+ with venv"
  local marker="$venv/.installed-$(sha256sum "$requirements" | cut -c1-16)"
  if [ ! -f "$marker" ]; then
    say "==> installing $what (once)"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    rm -f "$venv"/.installed-*
    touch "$marker"
  fi
}

# The moto server in .venv, reinstalled when infra/local/requirements.txt changes.
ensure_moto_venv() {
  need cargo "the Rust toolchain"
  ensure_toolchain
  ensure_venv "$VENV" "$ROOT/infra/local/requirements.txt" "the moto server into .venv"
}

# localstripe (PyPI, GPL: the local stack's Stripe, run as its own process, never linked into
# the service) in a venv of its own, reinstalled when infra/local/stripe-requirements.txt changes.
STRIPE_VENV="$LOCAL_DIR/stripe-venv"
ensure_stripe_venv() {
  ensure_venv "$STRIPE_VENV" "$ROOT/infra/local/stripe-requirements.txt" "localstripe into .local/stripe-venv"
}

# Stops the processes whose ids are given (empty ones skipped) and waits for them.
stop_pids() {
  for pid in "$@"; do
    if [ -n "$pid" ]; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
}

# The third-party validators the tests run (tests/validators, npm; pinned by its lock file): billet
# documents and webhook signatures.
ensure_validators() {
  npm_ci_once tests/validators "the independent validators" "of billets and webhooks"
}

# dynalite (DynamoDB on LevelDB, on disk) for the scale bench at a million billings
# (BENCH_ENGINE=dynalite), installed into infra/local/dynalite from its lockfile.
ensure_dynalite() {
  npm_ci_once infra/local/dynalite "dynalite" ""
}

# `npm ci` in the folder $1 of the repository (what: $2, $3 said of it), once per version of its
# lockfile.
npm_ci_once() {
  local dir="$ROOT/$1" what="$2" of="$3"
  need node "Node.js 18+ with npm (${what}${of:+ $of} run on it)"
  need npm "npm"
  local marker="$dir/node_modules/.installed-$(sha256sum "$dir/package-lock.json" | cut -c1-16)"
  if [ ! -f "$marker" ]; then
    say "==> installing $what into $1 (once)"
    (cd "$dir" && npm ci --silent --no-audit --no-fund)
    touch "$marker"
  fi
}

# Starts dynalite on 127.0.0.1:$1 with its data in the directory $2 (pid in DYNALITE_PID), and in
# front of it on 127.0.0.1:$3 the proxy that does the transactions it lacks
# (infra/local/transactions.py, pid in TRANSACTIONS_PID); waits until both answer.
# Waits up to 10 s for the command line `check` to succeed while the processes `pids`
# (space-separated) run, then says `ready`. Fails, pointing at `log`, when one of them stops first
# or the time is up.
wait_until() {
  local check="$1" pids="$2" ready="$3" log="$4"
  for _ in $(seq 1 100); do
    if eval "$check" 2>/dev/null; then
      say "$ready"
      return
    fi
    for pid in $pids; do
      kill -0 "$pid" 2>/dev/null || { say "error: process $pid stopped before it answered; see $log"; exit 1; }
    done
    sleep 0.1
  done
  say "error: no answer within 10 s; see $log"
  exit 1
}

start_dynalite() {
  local port="$1" data="$2" front="$3"
  mkdir -p "$LOCAL_DIR" "$data"
  node "$ROOT/infra/local/dynalite/serve.js" "$port" "$data" >"$LOCAL_DIR/dynalite-$port.log" 2>&1 &
  DYNALITE_PID=$!
  python3 "$ROOT/infra/local/transactions.py" --port "$front" --upstream "http://127.0.0.1:$port" \
    >"$LOCAL_DIR/transactions-$front.log" 2>&1 &
  TRANSACTIONS_PID=$!
  wait_until "python3 -c \"import socket; [socket.create_connection(('127.0.0.1', p), 1).close() for p in ($port, $front)]\"" \
    "$DYNALITE_PID $TRANSACTIONS_PID" \
    "==> dynalite on 127.0.0.1:$port (data in $data), transactions on 127.0.0.1:$front" \
    "$LOCAL_DIR/dynalite-$port.log and $LOCAL_DIR/transactions-$front.log"
}

stop_dynalite() {
  stop_pids "${TRANSACTIONS_PID:-}" "${DYNALITE_PID:-}"
}

# Installs Debian packages (none given: nothing), as root or through sudo. A fresh machine's package
# lists may be empty or stale: they are updated only when the install fails.
apt_install() {
  [ $# -eq 0 ] && return 0
  need apt-get "Debian's package manager, or install $* by hand"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  say "==> installing $* (apt-get, once)"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@" >/dev/null ||
    { $sudo apt-get update -q >/dev/null &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@" >/dev/null; }
}

# The independent readers of the printable billet (tests/tests/api/printable_billets.rs), from
# Debian's packages: pdftoppm and pdftotext (poppler-utils) render and read the PDF, zbarimg
# (zbar-tools) decodes its barcode and QR code, rsvg-convert (librsvg2-bin) renders the QR's SVG.
ensure_debs() {
  local missing=()
  command -v pdftoppm >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
  command -v zbarimg >/dev/null 2>&1 || missing+=(zbar-tools)
  command -v rsvg-convert >/dev/null 2>&1 || missing+=(librsvg2-bin)
  apt_install "${missing[@]}"
}

# The browser of the payer page's check (infra/check-payer-page): Debian's Chromium and its driver
# (browser downloads are not reachable; Playwright drives this binary), with fonts for its text.
ensure_browser() {
  local missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  [ -d /usr/share/fonts/truetype/liberation ] || missing+=(fonts-liberation)
  apt_install "${missing[@]}"
}

# Playwright for Python (pinned) in .venv-browser, driving Debian's Chromium: no browser download.
BROWSER_VENV="$ROOT/.venv-browser"
PLAYWRIGHT="playwright==1.65.0"
ensure_browser_venv() {
  local marker="$BROWSER_VENV/.installed-$(printf '%s' "$PLAYWRIGHT" | sha256sum | cut -c1-16)"
  if [ ! -f "$marker" ]; then
    say "==> installing $PLAYWRIGHT into .venv-browser (once)"
    [ -x "$BROWSER_VENV/bin/python" ] || python3 -m venv "$BROWSER_VENV"
    "$BROWSER_VENV/bin/pip" install --quiet --disable-pip-version-check "$PLAYWRIGHT"
    rm -f "$BROWSER_VENV"/.installed-*
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
  wait_until "moto_answers $port" "$MOTO_PID" "==> moto server on 127.0.0.1:$port (pid $MOTO_PID)" \
    "$LOCAL_DIR/moto-$port.log"
}

# Resident memory of the moto server started by start_moto, in MB ("?" when unknown).
moto_memory_mb() {
  local kb
  kb="$(ps -o rss= -p "${MOTO_PID:-0}" 2>/dev/null | tr -d ' ')"
  if [ -n "$kb" ]; then echo $((kb / 1024)); else echo "?"; fi
}

stop_moto() {
  stop_pids "${MOTO_PID:-}"
}

# Starts the fault proxy (infra/local/faults.py: DynamoDB's conflicts, throttles and 500s, SQS's
# duplicate deliveries) on 127.0.0.1:$1 in front of the moto server on 127.0.0.1:$2, in the
# background (pid in FAULTS_PID), with the rates the FAULT_* variables give (its defaults: 3 %
# throttles, 0.5 % 500s, transactions holding their items 20 ms, 1,000 write units a second per
# partition, 5 % duplicate deliveries), and waits until it answers.
start_faults() {
  local port="$1" upstream="$2"
  mkdir -p "$LOCAL_DIR"
  python3 "$ROOT/infra/local/faults.py" --port "$port" --upstream "http://127.0.0.1:$upstream" \
    >"$LOCAL_DIR/faults-$port.log" 2>&1 &
  FAULTS_PID=$!
  wait_until "python3 -c \"import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/_faults', timeout=1)\"" \
    "$FAULTS_PID" "==> fault proxy on 127.0.0.1:$port in front of the moto server (pid $FAULTS_PID)" \
    "$LOCAL_DIR/faults-$port.log"
}

stop_faults() {
  stop_pids "${FAULTS_PID:-}"
}

# The fault proxy's counters on 127.0.0.1:$1, as one line.
faults_summary() {
  python3 - "$1" <<'PY'
import json, sys, urllib.request
s = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/_faults", timeout=5))
c = s.get("counters", s)
keys = ["forwarded", "throttles", "partition_throttles", "errors_500", "late_errors_500", "conflicts",
        "single_write_conflicts", "replayed_tokens", "duplicates_immediate", "duplicates_later", "unprocessed_items",
        "s3_errors_500", "late_s3_errors_500"]
print(", ".join(f"{k} {c.get(k, 0)}" for k in keys))
PY
}

# The AWS SDK settings of the local stack: dummy credentials, endpoint on the moto server.
local_aws_env() {
  export AWS_ENDPOINT_URL="http://127.0.0.1:$1"
  export AWS_ACCESS_KEY_ID="local" AWS_SECRET_ACCESS_KEY="local" AWS_REGION="us-east-1" AWS_DEFAULT_REGION="us-east-1"
  export AWS_EC2_METADATA_DISABLED=true
  export TABLE_NAME="${TABLE_NAME:-billing-service}"
}

# The local stack's certificates for Pix, in $1 (made once): a local CA standing for the PSP's, the
# PSP's server certificate (psp-server, 127.0.0.1), the client certificate the PSP issues to the
# service (service-client), the PSP's own client certificate for its webhook calls (psp-client), and
# the server certificate of the dev server's Pix webhook listener (webhook-server, 127.0.0.1), and
# a self-signed client certificate no one trusts (stranger: the tests of mutual TLS).
ensure_pix_certs() {
  local dir="$1"
  [ -f "$dir/stranger.pem" ] && return 0
  need openssl "OpenSSL (the local Pix certificates)"
  mkdir -p "$dir"
  (
    cd "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 -subj "/CN=Local PSP CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -keyout ca.key -out ca.pem 2>/dev/null
    leaf() {
      local name="$1" cn="$2" usage="$3" san="${4:-}"
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$cn" -keyout "$name.key" \
        -out "$name.csr" 2>/dev/null
      { echo "basicConstraints=CA:FALSE"; echo "extendedKeyUsage=$usage"; [ -n "$san" ] && echo "subjectAltName=$san"; } >"$name.ext"
      openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 -out "$name.pem" \
        -extfile "$name.ext" 2>/dev/null
      rm -f "$name.csr" "$name.ext"
    }
    leaf psp-server "Local PSP" serverAuth "IP:127.0.0.1,DNS:localhost"
    leaf service-client "billing-service" clientAuth
    leaf psp-client "Local PSP webhook" clientAuth
    leaf webhook-server "Pix webhook (local)" serverAuth "IP:127.0.0.1,DNS:localhost"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 -subj "/CN=Stranger" \
      -addext "extendedKeyUsage=clientAuth" -keyout stranger.key -out stranger.pem 2>/dev/null
  )
  say "==> local Pix certificates in $dir"
}

# The Banco Central's API Pix contract (openapi.yaml, v2.9.0) the Pix calls are checked against, when
# one is at hand: PIX_API_CONTRACT names it. The repository holds no copy (third-party text); without
# one the local PSP is reached directly and the contract check is skipped.
pix_contract() {
  if [ -n "${PIX_API_CONTRACT:-}" ]; then
    [ -f "$PIX_API_CONTRACT" ] || { say "error: PIX_API_CONTRACT=$PIX_API_CONTRACT: no such file"; exit 1; }
    printf '%s\n' "$PIX_API_CONTRACT"
  fi
}

# Prism (npm @stoplight/prism-cli), once per version of its lockfile; only with a contract at hand.
ensure_prism() {
  [ -n "$(pix_contract)" ] || return 0
  npm_ci_once infra/local/prism "Prism" "(the API Pix contract proxy)"
}

# Starts the local PSP (infra/local/psp.py) on 127.0.0.1:$1 (plain HTTP) and :$2 (mutual TLS). With a
# contract at hand (pix_contract), Prism's proxy listens on 127.0.0.1:$3 in front of the plain port,
# checking every call against the contract as corrected by infra/local/pix_contract.py (--errors: a
# call or an answer that breaks it fails, and is logged in PRISM_LOG); without one the service calls
# the PSP directly and PRISM_LOG stays empty. Pids in PSP_PID and PRISM_PID; certificates in
# PIX_CERTS. Exports LOCAL_PSP_URL (the service's way in), LOCAL_PSP_DIRECT_URL, LOCAL_PSP_TLS_URL,
# LOCAL_PIX_CERTS.
start_pix() {
  local port="$1" tls_port="$2" prism_port="$3" contract
  contract="$(pix_contract)"
  PIX_CERTS="$LOCAL_DIR/pix"
  ensure_pix_certs "$PIX_CERTS"
  python3 "$ROOT/infra/local/psp.py" --port "$port" --tls-port "$tls_port" --certs "$PIX_CERTS" \
    >"$LOCAL_DIR/psp-$port.log" 2>&1 &
  PSP_PID=$!
  PRISM_PID="" PRISM_LOG=""
  local ports="$port, $tls_port" what="==> local PSP on 127.0.0.1:$port (mTLS :$tls_port)"
  if [ -n "$contract" ]; then
    "$VENV/bin/python" "$ROOT/infra/local/pix_contract.py" "$contract" "$PIX_CERTS/openapi.yaml" >&2
    PRISM_LOG="$LOCAL_DIR/prism-$prism_port.log"
    "$ROOT/infra/local/prism/node_modules/.bin/prism" proxy "$PIX_CERTS/openapi.yaml" "http://127.0.0.1:$port" \
      --errors -h 127.0.0.1 -p "$prism_port" >"$PRISM_LOG" 2>&1 &
    PRISM_PID=$!
    ports="$ports, $prism_port"
    what="$what, Prism's contract proxy on 127.0.0.1:$prism_port"
    export LOCAL_PSP_URL="http://127.0.0.1:$prism_port"
  else
    what="$what, called directly (no API Pix contract at hand: PIX_API_CONTRACT=<file> checks the calls)"
    export LOCAL_PSP_URL="http://127.0.0.1:$port"
  fi
  wait_until "python3 -c \"import socket; [socket.create_connection(('127.0.0.1', p), 1).close() for p in ($ports)]\"" \
    "$PSP_PID $PRISM_PID" "$what" "$LOCAL_DIR/psp-$port.log${PRISM_LOG:+ and $PRISM_LOG}"
  export LOCAL_PSP_DIRECT_URL="http://127.0.0.1:$port"
  export LOCAL_PSP_TLS_URL="https://127.0.0.1:$tls_port" LOCAL_PIX_CERTS="$PIX_CERTS"
}

stop_pix() {
  stop_pids "${PRISM_PID:-}" "${PSP_PID:-}"
}

# Starts the local stand-in for the WhatsApp API of AWS End User Messaging Social
# (infra/local/whatsapp.py) on 127.0.0.1:$1, and points the SDK's socialmessaging client at it
# (AWS_ENDPOINT_URL_SOCIALMESSAGING; LOCAL_WHATSAPP_URL for the tests). Pid in WHATSAPP_PID.
start_whatsapp() {
  local port="$1"
  python3 "$ROOT/infra/local/whatsapp.py" --port "$port" >"$LOCAL_DIR/whatsapp-$port.log" 2>&1 &
  WHATSAPP_PID=$!
  wait_until "python3 -c \"import socket; socket.create_connection(('127.0.0.1', $port), 1).close()\"" \
    "$WHATSAPP_PID" "==> local WhatsApp API on 127.0.0.1:$port" "$LOCAL_DIR/whatsapp-$port.log"
  export AWS_ENDPOINT_URL_SOCIALMESSAGING="http://127.0.0.1:$port" LOCAL_WHATSAPP_URL="http://127.0.0.1:$port"
}

stop_whatsapp() {
  stop_pids "${WHATSAPP_PID:-}"
}

# Starts localstripe on 127.0.0.1:$1 and the Stripe.js stand-in (infra/local/stripe_js.py) on
# 127.0.0.1:$2 in front of it; exports where they are (LOCAL_STRIPE_URL, LOCAL_STRIPE_JS_URL).
start_stripe() {
  local port="$1" js_port="$2"
  ensure_stripe_venv
  "$STRIPE_VENV/bin/python" "$ROOT/infra/local/localstripe_run.py" --port "$port" >"$LOCAL_DIR/localstripe-$port.log" 2>&1 &
  LOCALSTRIPE_PID=$!
  python3 "$ROOT/infra/local/stripe_js.py" --port "$js_port" --localstripe "http://127.0.0.1:$port" \
    >"$LOCAL_DIR/stripe-js-$js_port.log" 2>&1 &
  STRIPE_JS_PID=$!
  wait_until "python3 -c \"import socket; [socket.create_connection(('127.0.0.1', p), 1).close() for p in ($port, $js_port)]\"" \
    "$LOCALSTRIPE_PID $STRIPE_JS_PID" "==> localstripe on 127.0.0.1:$port, its Stripe.js stand-in on 127.0.0.1:$js_port" \
    "$LOCAL_DIR/localstripe-$port.log and $LOCAL_DIR/stripe-js-$js_port.log"
  export LOCAL_STRIPE_URL="http://127.0.0.1:$port" LOCAL_STRIPE_JS_URL="http://127.0.0.1:$js_port/v3/"
}

stop_stripe() {
  stop_pids "${STRIPE_JS_PID:-}" "${LOCALSTRIPE_PID:-}"
}

# The contract violations Prism logged in $1 (one line each; none: empty).
prism_violations() {
  grep -E "VIOLATIONS|\[VALIDATOR\]" "$1" 2>/dev/null || true
}
