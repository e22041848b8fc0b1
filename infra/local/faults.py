#!/usr/bin/env python3
"""A fault-injecting HTTP proxy between the service and the moto server.

moto answers every DynamoDB and SQS request at once and never fails; real AWS throttles, loses
answers, cancels transactions that touch an item another transaction is writing, and delivers SQS
messages more than once. This proxy sits in front of moto (all AWS SDK clients point
`AWS_ENDPOINT_URL` at it), forwards every request unchanged and relays moto's answer unchanged
unless it injects one of these faults:

1. random throttling of DynamoDB data-plane operations (`--throttle-rate`): single-item operations,
   Query and Scan get ProvisionedThroughputExceededException; TransactWriteItems (and
   TransactGetItems) is cancelled with a `ThrottlingError` reason (or, one time in four,
   ProvisionedThroughputExceededException); BatchWriteItem / BatchGetItem forward only part of
   their items and answer the rest as UnprocessedItems / UnprocessedKeys;
2. HTTP 500 InternalServerError on the same operations (`--error-rate`); a fraction of those on
   writes (`--late-error-fraction`) is answered after the write was applied;
3. transaction conflicts (`--hold-ms`): a TransactWriteItems holds the items it names for that
   long; meanwhile another transaction naming one of them is cancelled (`TransactionConflict`), a
   PutItem/UpdateItem/DeleteItem on it fails with TransactionConflictException and a BatchWriteItem
   request on it comes back in UnprocessedItems. Idempotency tokens (`ClientRequestToken`), which
   moto ignores, are honoured as DynamoDB does: a transaction retried with the token of one that
   succeeded within 10 minutes is answered 200 without being applied again;
4. per-partition write throttling (`--partition-wcu`): more than that many write units a second on
   one partition key (base table, or index `gsi1` by `gsi1pk`) is throttled;
5. SQS duplicate delivery (`--duplicate-rate`): a received message is delivered a second time,
   in the same answer (with a forged receipt handle the proxy accepts on delete) or a little later
   (the proxy sends its body to the queue again); optional HTTP 500 on SendMessage
   (`--sqs-error-rate`);
6. S3 (any request that is neither DynamoDB nor SQS nor Secrets Manager nor SES, nor moto's own
   API): HTTP 500 InternalError (`--s3-error-rate`); on a PUT, one time in two after the object was
   stored (its answer lost, as a request that timed out after S3 wrote it);
7. SES v2 `SendEmail` (`POST /v2/email/outbound-emails`): HTTP 429 TooManyRequestsException
   ("Maximum sending rate exceeded.") or, one time in three, HTTP 500 (`--ses-error-rate`), before
   moto sees it: the message is not sent.

Control: `GET /_faults` (settings and counters), `POST /_faults/reset`, `POST /_faults/config`
with a JSON object of settings. Every option may also be given as an environment variable
`FAULT_<OPTION>` (e.g. FAULT_THROTTLE_RATE=0.1); the flag wins.

Usage: python3 infra/local/faults.py --port 4567 --upstream http://127.0.0.1:4566 [options]

Python 3.11 standard library only.
"""

import argparse
import binascii
import collections
import email.utils
import hashlib
import heapq
import http
import http.client
import http.server
import json
import math
import os
import random
import re
import signal
import socket
import sys
import threading
import time
import traceback
import urllib.parse
import uuid

DDB_TARGET = "DynamoDB_20120810."
SQS_TARGET = "AmazonSQS."
DDB_ERROR = "com.amazonaws.dynamodb.v20120810#"
JSON_10 = "application/x-amz-json-1.0"

DATA_PLANE = frozenset(
    (
        "GetItem",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "Query",
        "Scan",
        "BatchGetItem",
        "BatchWriteItem",
        "TransactWriteItems",
        "TransactGetItems",
    )
)
WRITES = frozenset(("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"))
SINGLE_WRITES = frozenset(("PutItem", "UpdateItem", "DeleteItem"))
# Reads of the last committed state: a transaction holding an item does not stop them.
NEVER_HELD = frozenset(("GetItem", "Query", "Scan", "BatchGetItem"))

THROUGHPUT_MESSAGE = (
    "The level of configured provisioned throughput for the table was exceeded. "
    "Consider increasing your provisioning level with the UpdateTable API."
)
THROTTLING_REASON = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically "
    "scaling your table or index so please try again shortly."
)
CONFLICT_MESSAGE = "Transaction is ongoing for the item"
CANCELLED_MESSAGE = "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]"

TOKEN_TTL = 600.0  # seconds DynamoDB remembers a ClientRequestToken
TOKEN_MEMORY_MAX = 500_000  # entries, a bound on top of the TTL
TOTALS_PRUNE_AT = 50_000
TOTALS_KEEP = 10_000
SCHEMA_RETRY = 60.0  # seconds before asking again for a table whose schema was not found
UPSTREAM_TIMEOUT = 70.0
CLIENT_IDLE_TIMEOUT = 600.0

# Headers that describe one connection, not the message: never copied from one hop to the next.
HOP_BY_HOP = frozenset(
    (
        "connection",
        "keep-alive",
        "transfer-encoding",
        "te",
        "trailer",
        "trailers",
        "upgrade",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
    )
)
SKIP_REQUEST_HEADERS = HOP_BY_HOP | {"content-length", "expect"}
SKIP_RESPONSE_HEADERS = HOP_BY_HOP | {"content-length"}

# name: (type, default, help)
SETTINGS = {
    "throttle_rate": (float, 0.03, "probability of throttling a DynamoDB data-plane request"),
    "error_rate": (float, 0.005, "probability of an HTTP 500 on a DynamoDB data-plane request"),
    "late_error_fraction": (float, 0.0, "fraction of the 500s on writes answered after applying the write"),
    "hold_ms": (float, 20.0, "how long a TransactWriteItems holds its items (0 disables conflicts)"),
    "partition_wcu": (int, 1000, "write units a second one partition key takes (0 disables)"),
    "duplicate_rate": (float, 0.05, "probability of delivering a received SQS message twice"),
    "sqs_error_rate": (float, 0.0, "probability of an HTTP 500 on SQS SendMessage/SendMessageBatch"),
    "s3_error_rate": (float, 0.05, "probability of an HTTP 500 on an S3 request (on a PUT, half after storing)"),
    "ses_error_rate": (float, 0.1, "probability of a 429 (or, one in three, a 500) on an SES SendEmail"),
}
RATES = frozenset(
    ("throttle_rate", "error_rate", "late_error_fraction", "duplicate_rate", "sqs_error_rate", "s3_error_rate", "ses_error_rate")
)

SES_SEND = "/v2/email/outbound-emails"

COUNTERS = (
    "forwarded",
    "throttles",
    "partition_throttles",
    "errors_500",
    "late_errors_500",
    "conflicts",
    "single_write_conflicts",
    "batch_conflicts",
    "replayed_tokens",
    "token_mismatches",
    "transactions_in_progress",
    "duplicates_immediate",
    "duplicates_later",
    "duplicates_later_failed",
    "unprocessed_items",
    "sqs_errors_500",
    "s3_errors_500",
    "late_s3_errors_500",
    "ses_throttled_429",
    "ses_errors_500",
    "upstream_errors",
)


def check_setting(name, value):
    """The setting `name` as its type, or ValueError."""
    kind = SETTINGS[name][0]
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{name}: a number is needed")
    number = float(value)
    if math.isnan(number) or math.isinf(number):
        raise ValueError(f"{name}: a finite number is needed")
    if name in RATES and not 0.0 <= number <= 1.0:
        raise ValueError(f"{name}: must be between 0 and 1")
    if number < 0:
        raise ValueError(f"{name}: must not be negative")
    if kind is int:
        if number != int(number):
            raise ValueError(f"{name}: must be a whole number")
        return int(number)
    return number


def shown(value):
    return int(value) if isinstance(value, float) and value.is_integer() else value


# --- DynamoDB item sizes ----------------------------------------------------------------------


def _digits(number):
    return sum(1 for c in str(number) if c.isdigit())


def _b64_len(text):
    return len(str(text).rstrip("=")) * 3 // 4


def value_size(value):
    """Bytes DynamoDB counts for one attribute value (AttributeValue JSON)."""
    if not isinstance(value, dict) or not value:
        return 0
    kind, inner = next(iter(value.items()))
    if kind == "S":
        return len(str(inner).encode("utf-8"))
    if kind == "N":
        return _digits(inner) // 2 + 1
    if kind == "B":
        return _b64_len(inner)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(value_size(v) for v in (inner or ()))
    if kind == "M":
        return 3 + sum(len(k.encode("utf-8")) + value_size(v) for k, v in (inner or {}).items())
    if kind == "SS":
        return sum(len(str(s).encode("utf-8")) for s in (inner or ()))
    if kind == "NS":
        return sum(_digits(n) // 2 + 1 for n in (inner or ()))
    if kind == "BS":
        return sum(_b64_len(b) for b in (inner or ()))
    return 0


def item_size(item):
    if not isinstance(item, dict):
        return 0
    return sum(len(name.encode("utf-8")) + value_size(value) for name, value in item.items())


def write_units(size):
    return max(1, math.ceil(size / 1024))


def scalar(value):
    """The text of a key value ({"S": ..} / {"N": ..} / {"B": ..}), or None."""
    if isinstance(value, dict) and len(value) == 1:
        kind, inner = next(iter(value.items()))
        if kind in ("S", "N", "B") and isinstance(inner, (str, int, float)):
            return str(inner)
    return None


_ASSIGNMENT = re.compile(r"(#?[A-Za-z0-9_.\-]+)\s*=\s*(:[A-Za-z0-9_]+)")


def gsi1pk_of_update(op):
    """Best effort: the value an update expression gives gsi1pk (`SET gsi1pk = :v`), or None."""
    expression = op.get("UpdateExpression")
    if not isinstance(expression, str) or "=" not in expression:
        return None
    names = op.get("ExpressionAttributeNames") or {}
    values = op.get("ExpressionAttributeValues") or {}
    for match in _ASSIGNMENT.finditer(expression):
        name = match.group(1)
        if name.startswith("#"):
            name = names.get(name, name)
        if name == "gsi1pk":
            return scalar(values.get(match.group(2)))
    return None


# --- answers ----------------------------------------------------------------------------------


def request_id():
    return uuid.uuid4().hex.upper()


def header_of(headers, name):
    """The value of a header (case-insensitive name) in a list of pairs, or None."""
    name = name.lower()
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


class Reply:
    __slots__ = ("status", "headers", "body")

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name):
        return header_of(self.headers, name)

    def with_body(self, body):
        """The same answer with another body (Content-Length is set on sending; a CRC32 header
        DynamoDB clients check is recomputed)."""
        headers = []
        for key, value in self.headers:
            if key.lower() == "x-amz-crc32":
                value = str(binascii.crc32(body))
            headers.append((key, value))
        return Reply(self.status, headers, body)


def json_reply(status, document, dynamodb=True, extra_headers=()):
    body = json.dumps(document, separators=(",", ":")).encode("utf-8")
    headers = [("Content-Type", JSON_10), ("x-amzn-RequestId", request_id()), ("Date", email.utils.formatdate(usegmt=True))]
    if dynamodb:
        headers.append(("x-amz-crc32", str(binascii.crc32(body))))
    headers.extend(extra_headers)
    return Reply(status, headers, body)


def ddb_error(status, kind, message):
    return json_reply(status, {"__type": DDB_ERROR + kind, "message": message})


def throughput_exceeded():
    return ddb_error(400, "ProvisionedThroughputExceededException", THROUGHPUT_MESSAGE)


def internal_error():
    return ddb_error(500, "InternalServerError", "Internal server error")


def transaction_cancelled(codes):
    reasons = []
    for code in codes:
        if code == "TransactionConflict":
            reasons.append({"Code": code, "Message": CONFLICT_MESSAGE})
        elif code == "ThrottlingError":
            reasons.append({"Code": code, "Message": THROTTLING_REASON})
        else:
            reasons.append({"Code": "None"})
    message = CANCELLED_MESSAGE.format(", ".join(r["Code"] for r in reasons))
    return json_reply(
        400,
        {
            "__type": DDB_ERROR + "TransactionCanceledException",
            "Message": message,
            "CancellationReasons": reasons,
        },
    )


def s3_internal_error():
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code>'
        "<Message>We encountered an internal error. Please try again.</Message>"
        f"<RequestId>{request_id()}</RequestId></Error>"
    ).encode("utf-8")
    return Reply(500, [("Content-Type", "application/xml"), ("x-amz-request-id", request_id())], body)


def control_reply(status, document):
    body = (json.dumps(document, indent=2, sort_keys=True) + "\n").encode("utf-8")
    return Reply(status, [("Content-Type", "application/json")], body)


def upstream_failure(error):
    return Reply(
        502,
        [("Content-Type", "application/json")],
        json.dumps({"message": f"faults proxy: upstream unavailable: {error}"}).encode("utf-8"),
    )


class Request:
    __slots__ = ("method", "path", "headers", "body", "arrival")

    def __init__(self, method, path, headers, body, arrival):
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.arrival = arrival

    def header(self, name):
        return header_of(self.headers, name)

    def with_target(self, target, body):
        """Headers for a request of our own made from this one: another X-Amz-Target, the
        signature blanked (moto reads the region and account from the credential scope of the
        Authorization header and checks no signature)."""
        headers = []
        for key, value in self.headers:
            lower = key.lower()
            if lower == "x-amz-target":
                continue
            if lower == "authorization":
                value = re.sub(r"Signature=[0-9a-fA-F]+", "Signature=" + "0" * 64, value)
            if lower in ("amz-sdk-invocation-id", "amz-sdk-request", "x-amz-content-sha256"):
                continue
            headers.append((key, value))
        headers.append(("X-Amz-Target", target))
        return Request("POST", self.path, headers, body, time.monotonic())


# --- the later duplicates ---------------------------------------------------------------------


class Scheduler(threading.Thread):
    """Runs functions after a delay, one at a time, on one daemon thread."""

    def __init__(self):
        super().__init__(name="faults-scheduler", daemon=True)
        self._heap = []
        self._seq = 0
        self._cond = threading.Condition()

    def schedule(self, delay, function):
        with self._cond:
            self._seq += 1
            heapq.heappush(self._heap, (time.monotonic() + delay, self._seq, function))
            self._cond.notify()

    def run(self):
        while True:
            with self._cond:
                while not self._heap:
                    self._cond.wait()
                due = self._heap[0][0] - time.monotonic()
                if due > 0:
                    self._cond.wait(due)
                    continue
                _, _, function = heapq.heappop(self._heap)
            try:
                function()
            except Exception:  # noqa: BLE001 - a failed duplicate must not stop the scheduler
                traceback.print_exc()


# --- the proxy --------------------------------------------------------------------------------


class Faults:
    def __init__(self, upstream, settings, seed=None, verbose=False):
        parts = urllib.parse.urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"upstream must be an http:// URL, not {upstream!r}")
        self.upstream = upstream
        self.upstream_https = parts.scheme == "https"
        self.upstream_host = parts.hostname
        self.upstream_port = parts.port or (443 if self.upstream_https else 80)
        self.upstream_netloc = parts.netloc
        self.upstream_prefix = parts.path.rstrip("/")
        self.verbose = verbose
        self.settings = dict(settings)
        self.seed = seed

        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self._local = threading.local()

        self._counter_lock = threading.Lock()
        self.counters = dict.fromkeys(COUNTERS, 0)

        # Held items, token memory and write-unit counters, all under one lock so that a check and
        # the marking that follows it are one step.
        self._lock = threading.Lock()
        self._held = {}  # item identity -> owner (one per transaction)
        self._tokens = collections.OrderedDict()  # token -> (expires, fingerprint, body)
        self._tokens_in_flight = set()
        self._second_units = {}  # whole second -> {partition: units}
        self._totals = {}  # partition -> [units, peak units in one second]
        self._units_total = 0

        self._schemas = {}  # table -> (hash attribute, range attribute or None)
        self._schema_misses = {}  # table -> monotonic time of the last failed lookup

        self.scheduler = Scheduler()
        self.scheduler.start()

    # -- small helpers --

    def log(self, message):
        if self.verbose:
            sys.stderr.write(f"faults: {message}\n")
            sys.stderr.flush()

    def count(self, name, amount=1):
        with self._counter_lock:
            self.counters[name] += amount

    def chance(self, probability):
        if probability <= 0:
            return False
        if probability >= 1:
            return True
        with self._rng_lock:
            return self._rng.random() < probability

    def randrange(self, n):
        with self._rng_lock:
            return self._rng.randrange(n)

    def uniform(self, low, high):
        with self._rng_lock:
            return self._rng.uniform(low, high)

    def random_split(self, n):
        """range(n) (n >= 2) split at random into two non-empty lists: what a batch forwards, and
        what it answers unprocessed."""
        with self._rng_lock:
            k = self._rng.randint(1, n - 1)
            chosen = set(self._rng.sample(range(n), k))
        return [i for i in range(n) if i in chosen], [i for i in range(n) if i not in chosen]

    def forged_handle(self):
        with self._rng_lock:
            bits = self._rng.getrandbits(128)
        return "dup-" + uuid.UUID(int=bits, version=4).hex

    # -- upstream --

    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn, False
        if self.upstream_https:
            conn = http.client.HTTPSConnection(self.upstream_host, self.upstream_port, timeout=UPSTREAM_TIMEOUT)
        else:
            conn = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=UPSTREAM_TIMEOUT)
        conn.connect()
        try:
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        self._local.conn = conn
        return conn, True

    def _drop_connection(self):
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            try:
                conn.close()
            except OSError:
                pass

    def forward(self, request, body=None, count=True):
        """Sends `request` (with `body` instead of its own when given) to the upstream; its answer
        as a Reply, or a 502 Reply when the upstream cannot be reached."""
        if count:
            self.count("forwarded")
        body = request.body if body is None else body
        headers = [(k, v) for k, v in request.headers if k.lower() not in SKIP_REQUEST_HEADERS]
        if not any(k.lower() == "host" for k, _ in headers):
            headers.append(("Host", self.upstream_netloc))
        if body or request.method not in ("GET", "HEAD", "DELETE", "OPTIONS"):
            headers.append(("Content-Length", str(len(body))))
        path = self.upstream_prefix + request.path
        for attempt in (1, 2):
            try:
                conn, fresh = self._connection()
            except OSError as error:
                self.count("upstream_errors")
                return upstream_failure(error)
            try:
                conn.putrequest(request.method, path, skip_host=True, skip_accept_encoding=True)
                for key, value in headers:
                    conn.putheader(key, value)
                conn.endheaders(body if body else None)
                response = conn.getresponse()
                data = response.read()
            except (ConnectionResetError, BrokenPipeError, http.client.BadStatusLine) as error:
                # A kept-alive connection the upstream closed meanwhile: once more on a new one.
                self._drop_connection()
                if fresh or attempt == 2:
                    self.count("upstream_errors")
                    return upstream_failure(error)
                continue
            except (OSError, http.client.HTTPException) as error:
                self._drop_connection()
                self.count("upstream_errors")
                return upstream_failure(error)
            if response.will_close:
                self._drop_connection()
            reply_headers = [(k, v) for k, v in response.getheaders() if k.lower() not in SKIP_RESPONSE_HEADERS]
            if request.method == "HEAD":
                length = response.getheader("Content-Length")
                if length is not None:
                    reply_headers.append(("Content-Length", length))
            return Reply(response.status, reply_headers, data)
        return upstream_failure("unreachable")  # pragma: no cover

    # -- entry point --

    def handle(self, request):
        path = request.path
        if path == "/_faults" or path.startswith("/_faults/") or path.startswith("/_faults?"):
            return self.control(request)
        if request.method == "POST" and not path.startswith("/moto-api"):
            target = request.header("X-Amz-Target") or ""
            if target.startswith(DDB_TARGET):
                return self.dynamodb(target[len(DDB_TARGET) :], request)
            if target.startswith(SQS_TARGET):
                return self.sqs(target[len(SQS_TARGET) :], request)
        if path.startswith(SES_SEND) and request.method == "POST" and self.chance(self.settings["ses_error_rate"]):
            return self.ses_refusal()
        if self.is_s3(request) and self.chance(self.settings["s3_error_rate"]):
            if request.method == "PUT" and self.chance(0.5):
                self.forward(request)
                self.count("late_s3_errors_500")
            self.count("s3_errors_500")
            return s3_internal_error()
        return self.forward(request)

    @staticmethod
    def is_s3(request):
        """S3's REST calls carry no X-Amz-Target (DynamoDB, SQS and Secrets Manager do); SES v2's
        are under /v2/email/."""
        path = request.path
        return (
            not request.header("X-Amz-Target")
            and not path.startswith("/moto-api")
            and not path.startswith("/_faults")
            and not path.startswith("/v2/email/")
        )

    def ses_refusal(self):
        """SES's answer to a SendEmail over the sending rate (or, one time in three, a 500)."""
        if self.chance(1 / 3):
            self.count("ses_errors_500")
            document = {"message": "Internal service error"}
            return json_reply(500, document, dynamodb=False, extra_headers=(("x-amzn-ErrorType", "InternalFailure"),))
        self.count("ses_throttled_429")
        document = {"message": "Maximum sending rate exceeded."}
        headers = (("x-amzn-ErrorType", "TooManyRequestsException"),)
        return json_reply(429, document, dynamodb=False, extra_headers=headers)

    # -- control --

    def current_settings(self):
        return {name: shown(value) for name, value in self.settings.items()}

    def stats(self):
        with self._counter_lock:
            counters = dict(self.counters)
        with self._lock:
            top = sorted(self._totals.items(), key=lambda kv: kv[1][0], reverse=True)[:20]
            write_units = [{"partition": p, "units": u, "peak_per_second": peak} for p, (u, peak) in top]
            units_total = self._units_total
            held = len(self._held)
            tokens = len(self._tokens)
        return {
            "settings": self.current_settings(),
            "upstream": self.upstream,
            "seed": self.seed,
            **counters,
            "write_units": write_units,
            "write_units_total": units_total,
            "held_items": held,
            "remembered_tokens": tokens,
        }

    def reset(self):
        with self._counter_lock:
            self.counters = dict.fromkeys(COUNTERS, 0)
        with self._lock:
            self._totals = {}
            self._units_total = 0
            self._second_units = {}

    def configure(self, changes):
        if not isinstance(changes, dict):
            raise ValueError("a JSON object of settings is needed")
        checked = {}
        for name, value in changes.items():
            if name not in SETTINGS:
                raise ValueError(f"unknown setting {name!r} (known: {', '.join(SETTINGS)})")
            checked[name] = check_setting(name, value)
        self.settings.update(checked)
        if checked:
            self.log(f"settings changed: {json.dumps({k: shown(v) for k, v in checked.items()})}")
        return self.current_settings()

    def control(self, request):
        path = request.path.split("?", 1)[0].rstrip("/")
        if path == "/_faults" and request.method in ("GET", "HEAD"):
            return control_reply(200, self.stats())
        if path == "/_faults/reset" and request.method == "POST":
            self.reset()
            return control_reply(200, self.stats())
        if path == "/_faults/config" and request.method == "GET":
            return control_reply(200, self.current_settings())
        if path == "/_faults/config" and request.method == "POST":
            try:
                changes = json.loads(request.body or b"{}")
                return control_reply(200, self.configure(changes))
            except ValueError as error:
                return control_reply(400, {"error": str(error)})
        return control_reply(404, {"error": f"no such control: {request.method} {path}"})

    # -- DynamoDB: keys, partitions, write units --

    def learn_schema(self, reply):
        try:
            document = json.loads(reply.body)
        except ValueError:
            return
        if not isinstance(document, dict):
            return
        description = document.get("Table") or document.get("TableDescription")
        if not isinstance(description, dict):
            return
        name = description.get("TableName")
        hash_key = range_key = None
        for element in description.get("KeySchema") or ():
            if element.get("KeyType") == "HASH":
                hash_key = element.get("AttributeName")
            elif element.get("KeyType") == "RANGE":
                range_key = element.get("AttributeName")
        if name and hash_key:
            self._schemas[name] = (hash_key, range_key)

    def key_schema(self, table, sample, request):
        schema = self._schemas.get(table)
        if schema:
            return schema
        if "pk" in sample:
            return ("pk", "sk" if "sk" in sample else None)
        missed = self._schema_misses.get(table)
        if missed is not None and time.monotonic() - missed < SCHEMA_RETRY:
            return None
        body = json.dumps({"TableName": table}).encode("utf-8")
        reply = self.forward(request.with_target(DDB_TARGET + "DescribeTable", body), count=False)
        if reply.status == 200:
            self.learn_schema(reply)
        schema = self._schemas.get(table)
        if schema is None:
            self._schema_misses[table] = time.monotonic()
        return schema

    def locate(self, table, attributes, is_item, request):
        """(item identity, partition key text) of the item named by a Key map, or by the key
        attributes of a whole item."""
        if not isinstance(attributes, dict):
            attributes = {}
        schema = self.key_schema(table, attributes, request)
        if schema:
            key = {a: attributes[a] for a in schema if a and a in attributes}
            partition = scalar(attributes.get(schema[0]))
        else:
            key = attributes  # unknown schema: the whole Key map (or item)
            partition = scalar(attributes[min(attributes)]) if attributes and not is_item else None
        identity = table + "\x00" + json.dumps(key, sort_keys=True, separators=(",", ":"))
        return identity, partition

    def write_action(self, kind, op, request, factor=1):
        """(table, identity, [(partition, units)]) of one write: kind is Put, Update, Delete or
        ConditionCheck; `factor` is 2 inside a transaction."""
        table = op.get("TableName")
        if not isinstance(table, str):
            return None
        if kind == "Put":
            item = op.get("Item") if isinstance(op.get("Item"), dict) else {}
            identity, partition = self.locate(table, item, True, request)
            units = write_units(item_size(item)) * factor
            gsi = scalar(item.get("gsi1pk"))
        elif kind == "Update":
            key = op.get("Key") if isinstance(op.get("Key"), dict) else {}
            identity, partition = self.locate(table, key, False, request)
            values = op.get("ExpressionAttributeValues") or {}
            size = item_size(key) + sum(value_size(v) for v in values.values())
            units = write_units(size) * factor
            gsi = gsi1pk_of_update(op)
        else:  # Delete, ConditionCheck
            identity, partition = self.locate(table, op.get("Key"), False, request)
            units = factor
            gsi = None
        charges = []
        if partition is not None:
            charges.append((f"{table}/{partition}", units))
        if gsi is not None:
            charges.append((f"{table}/gsi1:{gsi}", units))
        return table, identity, charges

    # The per-second counters; callers hold self._lock.

    def _units_now(self, second):
        counts = self._second_units.get(second)
        if counts is None:
            counts = self._second_units[second] = {}
            for old in [s for s in self._second_units if s < second - 2]:
                del self._second_units[old]
        return counts

    def _over(self, charges, limit, second, pending=None):
        """The partitions among `charges` the limit refuses in this second."""
        counts = self._units_now(second)
        needed = {}
        for partition, units in charges:
            needed[partition] = needed.get(partition, 0) + units
        refused = set()
        for partition, units in needed.items():
            already = counts.get(partition, 0) + (pending.get(partition, 0) if pending else 0)
            if already + units > limit:
                refused.add(partition)
        return refused

    def _charge(self, charges, second):
        counts = self._units_now(second)
        for partition, units in charges:
            now = counts[partition] = counts.get(partition, 0) + units
            total = self._totals.get(partition)
            if total is None:
                self._totals[partition] = [units, now]
            else:
                total[0] += units
                if now > total[1]:
                    total[1] = now
            self._units_total += units
        if len(self._totals) > TOTALS_PRUNE_AT:
            kept = sorted(self._totals.items(), key=lambda kv: kv[1][0], reverse=True)[:TOTALS_KEEP]
            self._totals = dict(kept)

    # -- DynamoDB: dispatch --

    def dynamodb(self, operation, request):
        settings = self.settings
        if operation in ("DescribeTable", "CreateTable"):
            reply = self.forward(request)
            if reply.status == 200:
                self.learn_schema(reply)
            return reply
        if operation not in DATA_PLANE:
            return self.forward(request)
        random_faults = settings["throttle_rate"] > 0 or settings["error_rate"] > 0
        if not random_faults and operation in NEVER_HELD:
            return self.forward(request)
        if (
            not random_faults
            and operation != "TransactWriteItems"
            and settings["partition_wcu"] <= 0
            and not self._held
        ):
            return self.forward(request)
        try:
            document = json.loads(request.body)
        except ValueError:
            return self.forward(request)
        if not isinstance(document, dict):
            return self.forward(request)

        late = False
        throttled = False
        if self.chance(settings["error_rate"]):
            if operation in WRITES and self.chance(settings["late_error_fraction"]):
                late = True
            else:
                self.count("errors_500")
                self.log(f"500 InternalServerError on {operation}")
                return internal_error()
        elif self.chance(settings["throttle_rate"]):
            if operation in ("BatchWriteItem", "BatchGetItem"):
                throttled = True
            elif operation in ("TransactWriteItems", "TransactGetItems"):
                return self.throttle_transaction(operation, document)
            else:
                self.count("throttles")
                self.log(f"throttled {operation}")
                return throughput_exceeded()

        if operation == "TransactWriteItems":
            reply = self.transact_write(document, request)
        elif operation == "TransactGetItems":
            reply = self.transact_get(document, request)
        elif operation in SINGLE_WRITES:
            reply = self.single_write(operation, document, request)
        elif operation == "BatchWriteItem":
            reply = self.batch_write(document, request, throttled)
        elif operation == "BatchGetItem":
            reply = self.batch_get(document, request, throttled)
        else:
            reply = self.forward(request)

        if late:
            self.count("late_errors_500")
            self.log(f"500 InternalServerError on {operation} after forwarding it (answer {reply.status} lost)")
            return internal_error()
        return reply

    def throttle_transaction(self, operation, document):
        self.count("throttles")
        items = document.get("TransactItems")
        n = len(items) if isinstance(items, list) else 0
        if n == 0 or self.chance(0.25):
            self.log(f"throttled {operation} (ProvisionedThroughputExceededException)")
            return throughput_exceeded()
        codes = ["None"] * n
        codes[self.randrange(n)] = "ThrottlingError"
        self.log(f"throttled {operation} (TransactionCanceledException, ThrottlingError)")
        return transaction_cancelled(codes)

    # -- DynamoDB: transactions --

    def transact_write(self, document, request):
        settings = self.settings
        items = document.get("TransactItems")
        if not isinstance(items, list):
            return self.forward(request)
        token = document.get("ClientRequestToken")
        if not isinstance(token, str) or not token:
            token = None
        fingerprint = None
        if token:
            canonical = json.dumps(items, sort_keys=True, separators=(",", ":")).encode("utf-8")
            fingerprint = hashlib.sha256(canonical).hexdigest()
            replay = self.remembered(token, fingerprint)
            if replay is not None:
                return replay

        hold = settings["hold_ms"] / 1000.0
        limit = settings["partition_wcu"]
        actions = []
        for entry in items:
            action = None
            if isinstance(entry, dict) and len(entry) == 1:
                kind, op = next(iter(entry.items()))
                if kind in ("Put", "Update", "Delete", "ConditionCheck") and isinstance(op, dict):
                    action = self.write_action(kind, op, request, factor=2)
            actions.append(action)

        owner = object()
        second = int(time.time())
        conflicts = throttled_items = refused = ()
        with self._lock:
            if token:  # again, under the lock: a twin may have finished meanwhile
                replay = self._remembered_locked(token, fingerprint)
                if replay is not None:
                    reply = replay
                elif token in self._tokens_in_flight:
                    reply = "in-progress"
                else:
                    reply = None
            else:
                reply = None
            if reply is None:
                conflicts = [a is not None and a[1] in self._held for a in actions]
                if any(conflicts):
                    reply = "conflict"
            if reply is None and limit > 0:
                charges = [c for a in actions if a for c in a[2]]
                refused = self._over(charges, limit, second)
                if refused:
                    throttled_items = [a is not None and any(p in refused for p, _ in a[2]) for a in actions]
                    reply = "throttled"
            if reply is None:
                if limit > 0:
                    self._charge([c for a in actions if a for c in a[2]], second)
                if hold > 0:
                    for action in actions:
                        if action is not None:
                            self._held[action[1]] = owner
                if token:
                    self._tokens_in_flight.add(token)

        if isinstance(reply, Reply):
            return self._replayed(reply)
        if reply == "in-progress":
            self.count("transactions_in_progress")
            self.log("TransactWriteItems retried while its first attempt is still running")
            return ddb_error(400, "TransactionInProgressException", "Transaction is in progress")
        if reply == "conflict":
            self.count("conflicts")
            held = [a[1] for a, c in zip(actions, conflicts) if c]
            self.log(f"TransactWriteItems cancelled: TransactionConflict on {held[:3]}")
            return transaction_cancelled(["TransactionConflict" if c else "None" for c in conflicts])
        if reply == "throttled":
            self.count("partition_throttles")
            self.log(f"TransactWriteItems throttled: partition(s) {', '.join(sorted(refused))} over {limit} WCU/s")
            return transaction_cancelled(["ThrottlingError" if t else "None" for t in throttled_items])

        try:
            upstream = self.forward(request)
            if token and upstream.status == 200:
                self.remember(token, fingerprint, upstream.body)
        finally:
            if hold > 0:
                remaining = request.arrival + hold - time.monotonic()
                if remaining > 0:
                    time.sleep(remaining)
            with self._lock:
                if hold > 0:
                    for action in actions:
                        if action is not None and self._held.get(action[1]) is owner:
                            del self._held[action[1]]
                if token:
                    self._tokens_in_flight.discard(token)
        return upstream

    def remembered(self, token, fingerprint):
        with self._lock:
            found = self._remembered_locked(token, fingerprint)
        return self._replayed(found) if found is not None else None

    def _remembered_locked(self, token, fingerprint):
        entry = self._tokens.get(token)
        if entry is None:
            return None
        expires, remembered_fingerprint, body = entry
        if expires < time.monotonic():
            del self._tokens[token]
            return None
        if remembered_fingerprint != fingerprint:
            return Reply(-1, [], b"")  # marks a mismatch for _replayed
        return Reply(200, [], body)

    def _replayed(self, found):
        if found.status == -1:
            self.count("token_mismatches")
            self.log("TransactWriteItems: ClientRequestToken reused with another request")
            return ddb_error(
                400,
                "IdempotentParameterMismatchException",
                "Request token already used for a different request",
            )
        self.count("replayed_tokens")
        self.log("TransactWriteItems replayed from its ClientRequestToken")
        body = found.body
        return Reply(
            200,
            [
                ("Content-Type", JSON_10),
                ("x-amzn-RequestId", request_id()),
                ("Date", email.utils.formatdate(usegmt=True)),
                ("x-amz-crc32", str(binascii.crc32(body))),
            ],
            body,
        )

    def remember(self, token, fingerprint, body):
        now = time.monotonic()
        with self._lock:
            self._tokens.pop(token, None)
            self._tokens[token] = (now + TOKEN_TTL, fingerprint, body)
            while self._tokens:
                oldest, (expires, _, _) = next(iter(self._tokens.items()))
                if expires >= now and len(self._tokens) <= TOKEN_MEMORY_MAX:
                    break
                del self._tokens[oldest]

    def transact_get(self, document, request):
        items = document.get("TransactItems")
        if not isinstance(items, list) or not self._held:
            return self.forward(request)
        identities = []
        for entry in items:
            identity = None
            get = entry.get("Get") if isinstance(entry, dict) else None
            if isinstance(get, dict) and isinstance(get.get("TableName"), str):
                identity = self.locate(get["TableName"], get.get("Key"), False, request)[0]
            identities.append(identity)
        with self._lock:
            conflicts = [i is not None and i in self._held for i in identities]
        if any(conflicts):
            self.count("conflicts")
            self.log("TransactGetItems cancelled: TransactionConflict")
            return transaction_cancelled(["TransactionConflict" if c else "None" for c in conflicts])
        return self.forward(request)

    # -- DynamoDB: single writes --

    def single_write(self, operation, document, request):
        kind = {"PutItem": "Put", "UpdateItem": "Update", "DeleteItem": "Delete"}[operation]
        action = self.write_action(kind, document, request)
        if action is None:
            return self.forward(request)
        limit = self.settings["partition_wcu"]
        second = int(time.time())
        outcome = None
        with self._lock:
            if action[1] in self._held:
                outcome = "conflict"
            elif limit > 0:
                refused = self._over(action[2], limit, second)
                if refused:
                    outcome = "throttled"
                else:
                    self._charge(action[2], second)
        if outcome == "conflict":
            self.count("single_write_conflicts")
            self.log(f"{operation} on an item a transaction holds: TransactionConflictException")
            return ddb_error(400, "TransactionConflictException", CONFLICT_MESSAGE)
        if outcome == "throttled":
            self.count("partition_throttles")
            self.log(f"{operation} throttled: partition(s) {', '.join(sorted(refused))} over {limit} WCU/s")
            return throughput_exceeded()
        return self.forward(request)

    # -- DynamoDB: batches --

    def batch_write(self, document, request, throttled):
        requested = document.get("RequestItems")
        if not isinstance(requested, dict):
            return self.forward(request)
        entries = [(t, e) for t, lst in requested.items() if isinstance(lst, list) for e in lst]
        n = len(entries)
        if n == 0:
            return self.forward(request)
        kept = range(n)
        randomly_refused = []
        if throttled:
            self.count("throttles")
            if n == 1:
                self.log("throttled BatchWriteItem of one item")
                return throughput_exceeded()
            kept, randomly_refused = self.random_split(n)

        limit = self.settings["partition_wcu"]
        check_holds = bool(self._held)
        actions = {}
        if limit > 0 or check_holds:
            for i in kept:
                table, entry = entries[i]
                action = None
                if isinstance(entry, dict):
                    if isinstance(entry.get("PutRequest"), dict):
                        action = self.write_action("Put", {"TableName": table, **entry["PutRequest"]}, request)
                    elif isinstance(entry.get("DeleteRequest"), dict):
                        action = self.write_action("Delete", {"TableName": table, **entry["DeleteRequest"]}, request)
                actions[i] = action

        accepted, conflicted, over = [], [], []
        second = int(time.time())
        with self._lock:
            pending = {}
            for i in kept:
                action = actions.get(i)
                if action is not None and action[1] in self._held:
                    conflicted.append(i)
                    continue
                if action is not None and limit > 0:
                    if self._over(action[2], limit, second, pending):
                        over.append(i)
                        continue
                    for partition, units in action[2]:
                        pending[partition] = pending.get(partition, 0) + units
                accepted.append(i)
            if accepted and limit > 0:
                self._charge([c for i in accepted if actions.get(i) for c in actions[i][2]], second)

        if over:
            self.count("partition_throttles", len(over))
        if conflicted:
            self.count("batch_conflicts", len(conflicted))
        refused = sorted(randomly_refused + conflicted + over)
        if not refused:
            return self.forward(request)
        if not accepted:
            if randomly_refused or over:
                self.log("BatchWriteItem: no item could be written: ProvisionedThroughputExceededException")
                return throughput_exceeded()
            self.count("unprocessed_items", len(refused))
            self.log(f"BatchWriteItem: all {len(refused)} item(s) held by transactions, returned unprocessed")
            return json_reply(200, {"UnprocessedItems": self._group_writes(entries, refused)})

        self.count("unprocessed_items", len(refused))
        self.log(f"BatchWriteItem: {len(refused)} of {n} item(s) returned unprocessed")

        def merge(unprocessed):
            for table, lst in self._group_writes(entries, refused).items():
                unprocessed.setdefault(table, []).extend(lst)
            return unprocessed

        return self.forward_part(request, document, self._group_writes(entries, accepted), "UnprocessedItems", merge)

    def forward_part(self, request, document, kept, field, merge):
        """Forwards a batch request with only the `kept` RequestItems, and answers moto's reply with
        what was held back merged into its `field` (UnprocessedItems or UnprocessedKeys) by `merge`."""
        def amend(answer):
            answer[field] = merge(answer.get(field) or {})

        return self.forward_amended(request, {**document, "RequestItems": kept}, amend)

    def forward_amended(self, request, document, amend):
        """Forwards `document` as the request's body and, when moto answers 200 with JSON, answers
        that JSON as `amend` changed it (in place)."""
        reply = self.forward(request, json.dumps(document, separators=(",", ":")).encode("utf-8"))
        if reply.status != 200:
            return reply
        try:
            answer = json.loads(reply.body)
        except ValueError:
            return reply
        amend(answer)
        return reply.with_body(json.dumps(answer, separators=(",", ":")).encode("utf-8"))

    @staticmethod
    def _group_writes(entries, indexes):
        grouped = {}
        for i in indexes:
            table, entry = entries[i]
            grouped.setdefault(table, []).append(entry)
        return grouped

    def batch_get(self, document, request, throttled):
        if not throttled:
            return self.forward(request)
        requested = document.get("RequestItems")
        if not isinstance(requested, dict):
            return self.forward(request)
        entries = [
            (t, key)
            for t, spec in requested.items()
            if isinstance(spec, dict) and isinstance(spec.get("Keys"), list)
            for key in spec["Keys"]
        ]
        n = len(entries)
        if n == 0:
            return self.forward(request)
        self.count("throttles")
        if n == 1:
            self.log("throttled BatchGetItem of one key")
            return throughput_exceeded()
        kept, refused = self.random_split(n)

        def grouped(indexes):
            out = {}
            for i in indexes:
                table, key = entries[i]
                if table not in out:
                    out[table] = {k: v for k, v in requested[table].items() if k != "Keys"}
                    out[table]["Keys"] = []
                out[table]["Keys"].append(key)
            return out

        self.count("unprocessed_items", len(refused))
        self.log(f"BatchGetItem: {len(refused)} of {n} key(s) returned unprocessed")

        def merge(unprocessed):
            for table, spec in grouped(refused).items():
                if table in unprocessed and isinstance(unprocessed[table].get("Keys"), list):
                    unprocessed[table]["Keys"].extend(spec["Keys"])
                else:
                    unprocessed[table] = spec
            return unprocessed

        return self.forward_part(request, document, grouped(kept), "UnprocessedKeys", merge)

    # -- SQS --

    def sqs(self, operation, request):
        settings = self.settings
        if operation in ("SendMessage", "SendMessageBatch") and self.chance(settings["sqs_error_rate"]):
            self.count("sqs_errors_500")
            self.log(f"500 InternalError on SQS {operation}")
            return json_reply(
                500,
                {
                    "__type": "com.amazonaws.sqs#InternalError",
                    "message": "We encountered an internal error. Please try again.",
                },
                dynamodb=False,
                extra_headers=[("x-amzn-query-error", "InternalError;Receiver")],
            )
        if operation == "ReceiveMessage":
            return self.receive(request)
        if operation in ("DeleteMessage", "ChangeMessageVisibility") and b'"dup-' in request.body:
            try:
                document = json.loads(request.body)
            except ValueError:
                return self.forward(request)
            handle = document.get("ReceiptHandle") if isinstance(document, dict) else None
            if isinstance(handle, str) and handle.startswith("dup-"):
                return json_reply(200, {}, dynamodb=False)
            return self.forward(request)
        if operation in ("DeleteMessageBatch", "ChangeMessageVisibilityBatch") and b'"dup-' in request.body:
            return self.batch_with_forged_handles(request)
        return self.forward(request)

    def receive(self, request):
        reply = self.forward(request)
        rate = self.settings["duplicate_rate"]
        if reply.status != 200 or rate <= 0 or b'"Messages"' not in reply.body:
            return reply
        try:
            answer = json.loads(reply.body)
            asked = json.loads(request.body)
        except ValueError:
            return reply
        messages = answer.get("Messages") if isinstance(answer, dict) else None
        if not messages or not isinstance(asked, dict):
            return reply
        queue_url = asked.get("QueueUrl")
        if not isinstance(queue_url, str) or queue_url.endswith(".fifo"):
            return reply  # FIFO queues deliver exactly once
        room = asked.get("MaxNumberOfMessages") or 1
        extra = []
        for message in messages:
            if not isinstance(message, dict) or not self.chance(rate):
                continue
            # Immediately, when the answer has room for one more message (SQS never answers more
            # than MaxNumberOfMessages), else later.
            if self.chance(0.5) and len(messages) + len(extra) < room:
                twin = dict(message)
                twin["ReceiptHandle"] = self.forged_handle()
                extra.append(twin)
                self.count("duplicates_immediate")
                self.log(f"SQS message {message.get('MessageId')} delivered twice in one answer")
            else:
                delay = self.uniform(0.2, 3.0)
                self.count("duplicates_later")
                self.log(f"SQS message {message.get('MessageId')} will be delivered again in {delay:.1f} s")
                self.scheduler.schedule(delay, self._resender(request, queue_url, message))
        if not extra:
            return reply
        answer["Messages"] = messages + extra
        return reply.with_body(json.dumps(answer, separators=(",", ":")).encode("utf-8"))

    def _resender(self, request, queue_url, message):
        document = {"QueueUrl": queue_url, "MessageBody": message.get("Body", "")}
        if message.get("MessageAttributes"):
            document["MessageAttributes"] = message["MessageAttributes"]
        again = request.with_target(SQS_TARGET + "SendMessage", json.dumps(document).encode("utf-8"))

        def send():
            reply = self.forward(again, count=False)
            if reply.status != 200:
                self.count("duplicates_later_failed")
                self.log(f"SQS duplicate not sent: {reply.status} {reply.body[:200]!r}")

        return send

    def batch_with_forged_handles(self, request):
        try:
            document = json.loads(request.body)
        except ValueError:
            return self.forward(request)
        entries = document.get("Entries") if isinstance(document, dict) else None
        if not isinstance(entries, list):
            return self.forward(request)
        forged = [e for e in entries if isinstance(e, dict) and str(e.get("ReceiptHandle", "")).startswith("dup-")]
        if not forged:
            return self.forward(request)
        ours = [{"Id": e.get("Id")} for e in forged]
        rest = [e for e in entries if not (isinstance(e, dict) and str(e.get("ReceiptHandle", "")).startswith("dup-"))]
        if not rest:
            return json_reply(200, {"Successful": ours, "Failed": []}, dynamodb=False)

        def amend(answer):
            answer["Successful"] = (answer.get("Successful") or []) + ours
            answer.setdefault("Failed", [])

        return self.forward_amended(request, {**document, "Entries": rest}, amend)


# --- HTTP server ------------------------------------------------------------------------------


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "faults-proxy"
    disable_nagle_algorithm = True
    timeout = CLIENT_IDLE_TIMEOUT

    def log_message(self, format, *args):  # noqa: A002 - quiet: nothing per request
        pass

    def _read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                line = self.rfile.readline(65537)
                if not line:
                    raise ValueError("truncated chunked body")
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunk = self.rfile.read(size)
                if len(chunk) != size:
                    raise ValueError("truncated chunked body")
                chunks.append(chunk)
                self.rfile.readline(65537)
        length = self.headers.get("Content-Length")
        if not length:
            return b""
        length = int(length)
        if length < 0:
            raise ValueError("negative Content-Length")
        body = self.rfile.read(length)
        if len(body) != length:
            raise ValueError("truncated body")
        return body

    def _serve(self):
        try:
            body = self._read_body()
        except ValueError as error:
            self.close_connection = True
            self._send(Reply(400, [("Content-Type", "text/plain")], f"bad request: {error}\n".encode()))
            return
        request = Request(self.command, self.path, list(self.headers.items()), body, time.monotonic())
        try:
            reply = self.server.faults.handle(request)
        except Exception as error:  # noqa: BLE001 - answer, log, keep serving
            traceback.print_exc()
            reply = Reply(500, [("Content-Type", "text/plain")], f"faults proxy error: {error}\n".encode())
        self._send(reply)

    def _send(self, reply):
        try:
            phrase = http.HTTPStatus(reply.status).phrase
        except ValueError:
            phrase = "Unknown"
        lines = [f"HTTP/1.1 {reply.status} {phrase}\r\n"]
        has_length = False
        for key, value in reply.headers:
            if key.lower() == "content-length":
                has_length = True  # only HEAD answers keep the upstream's
            lines.append(f"{key}: {value}\r\n")
        if self.command == "HEAD":
            body = b""
        else:
            body = reply.body
            if reply.status not in (204, 304) and not 100 <= reply.status < 200:
                lines.append(f"Content-Length: {len(body)}\r\n")
        if not has_length and self.command == "HEAD":
            lines.append(f"Content-Length: {len(reply.body)}\r\n")
        if self.close_connection:
            lines.append("Connection: close\r\n")
        lines.append("\r\n")
        try:
            self.wfile.write("".join(lines).encode("latin-1", "replace") + body)
        except OSError:
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = _serve


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256
    block_on_close = False

    def handle_error(self, request, client_address):
        # A client that went away mid-request is not worth a traceback.
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


# --- command line -----------------------------------------------------------------------------


def env(name):
    return os.environ.get("FAULT_" + name.upper().replace("-", "_"))


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Fault-injecting proxy in front of the moto server (see the module docstring).",
        epilog="Every option may also be set as FAULT_<OPTION_IN_UPPER_SNAKE>; the flag wins.",
    )
    parser.add_argument("--host", default=env("host") or "127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=int(env("port") or 4567), help="port to listen on (0: any)")
    parser.add_argument(
        "--upstream", default=env("upstream") or "http://127.0.0.1:4566", help="the moto server's URL"
    )
    for name, (_, default, help_text) in SETTINGS.items():
        flag = "--" + name.replace("_", "-")

        def kind(text, name=name):
            try:
                return check_setting(name, text)
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None

        from_env = env(name)
        try:
            initial = check_setting(name, from_env) if from_env is not None else default
        except ValueError as error:
            parser.error(f"FAULT_{name.upper()}: {error}")
        parser.add_argument(flag, type=kind, default=initial, help=f"{help_text} [{shown(default)}]")
    seed = env("seed")
    parser.add_argument("--seed", type=int, default=int(seed) if seed else None, help="random seed [random]")
    verbose = (env("verbose") or "").lower() in ("1", "true", "yes", "on")
    parser.add_argument("--verbose", action="store_true", default=verbose, help="log each injected fault")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    settings = {name: getattr(args, name) for name in SETTINGS}
    try:
        faults = Faults(args.upstream, settings, seed=args.seed, verbose=args.verbose)
        server = Server((args.host, args.port), Handler)
    except (OSError, ValueError) as error:
        sys.stderr.write(f"faults proxy: cannot start on {args.host}:{args.port}: {error}\n")
        return 1
    server.faults = faults

    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.25}, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    sys.stderr.write(f"faults proxy on {host}:{port} -> {args.upstream}\n")
    sys.stderr.flush()
    while not stop.wait(1.0):
        pass
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
