#!/usr/bin/env python3
"""A DynamoDB endpoint in front of an engine that has no transactions (dynalite), for the scale
bench at a million billings (`BENCH_ENGINE=dynalite infra/bench scale`, docs/data-model.md).

moto holds about 3 GB per 100,000 billings and reads a partition from its start at every call, so
a million billings do not fit this machine on it. dynalite keeps its items in LevelDB on disk and
seeks as DynamoDB does, but it has no TransactWriteItems, TransactGetItems or UpdateTimeToLive.
This proxy forwards every request to it and does those three itself:

- TransactWriteItems: each item in order as PutItem, UpdateItem or DeleteItem with its own
  condition; the first condition that fails stops the rest and answers
  TransactionCanceledException with `ConditionalCheckFailed` at its place (the items before it are
  written: **not atomic**). A ConditionCheck is not checked.
- TransactGetItems: each item as GetItem.
- UpdateTimeToLive: answered as done (nothing expires).

Good for one client writing what it then measures (the bench's reads; its own writes' conditions
hold), not for tests of the service's semantics: those run on moto, with faults.py in front.
"""

import argparse
import binascii
import http.client
import http.server
import json
import socketserver
import threading
import urllib.parse

TARGET = "DynamoDB_20120810."
ERROR = "com.amazonaws.dynamodb.v20120810#"
JSON_10 = "application/x-amz-json-1.0"
# Fields of a transaction's item that its single request does not take.
NOT_SINGLE = ("ReturnValuesOnConditionCheckFailure",)


class Upstream(threading.local):
    """One kept-alive connection to the engine per thread."""

    def __init__(self, host, port):
        self.host, self.port, self.conn = host, port, None

    def send(self, method, path, headers, body):
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=600)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                return response.status, response.getheaders(), response.read()
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def reply_json(status, document):
    body = json.dumps(document, separators=(",", ":")).encode()
    headers = [("Content-Type", JSON_10), ("x-amz-crc32", str(binascii.crc32(body)))]
    return status, headers, body


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream = None

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        target = self.headers.get("X-Amz-Target") or ""
        operation = target[len(TARGET) :] if target.startswith(TARGET) else ""
        try:
            if operation == "TransactWriteItems":
                answer = self.transact_write(json.loads(body))
            elif operation == "TransactGetItems":
                answer = self.transact_get(json.loads(body))
            elif operation == "UpdateTimeToLive":
                answer = reply_json(200, {"TimeToLiveSpecification": json.loads(body).get("TimeToLiveSpecification")})
            else:
                answer = self.forward(body)
        except (OSError, http.client.HTTPException) as error:
            answer = reply_json(500, {"__type": ERROR + "InternalServerError", "message": f"engine: {error}"})
        status, headers, data = answer
        self.send_response(status)
        for key, value in headers:
            if key.lower() not in ("content-length", "connection", "transfer-encoding", "keep-alive", "date", "server"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def forward(self, body, target=None):
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("content-length", "host", "connection")}
        if target is not None:
            headers = {k: v for k, v in headers.items() if k.lower() != "x-amz-target"}
            headers["X-Amz-Target"] = TARGET + target
        headers["Content-Length"] = str(len(body))
        return self.upstream.send("POST", self.path, headers, body)

    def single(self, operation, document):
        status, headers, data = self.forward(json.dumps(document).encode(), operation)
        return status, headers, data, (json.loads(data) if data else {})

    def transact_write(self, document):
        kinds = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}
        items = document.get("TransactItems") or []
        for index, entry in enumerate(items):
            (kind, request), = entry.items()
            if kind == "ConditionCheck":
                continue
            request = {k: v for k, v in request.items() if k not in NOT_SINGLE}
            status, headers, data, answer = self.single(kinds[kind], request)
            if status == 200:
                continue
            if answer.get("__type", "").endswith("ConditionalCheckFailedException"):
                codes = ["None"] * len(items)
                codes[index] = "ConditionalCheckFailed"
                reasons = [{"Code": c} if c == "None" else {"Code": c, "Message": "The conditional request failed"} for c in codes]
                message = "Transaction cancelled, please refer cancellation reasons for specific reasons [" + ", ".join(codes) + "]"
                return reply_json(400, {"__type": ERROR + "TransactionCanceledException", "Message": message, "CancellationReasons": reasons})
            return status, headers, data
        return reply_json(200, {})

    def transact_get(self, document):
        responses = []
        for entry in document.get("TransactItems") or []:
            status, headers, data, answer = self.single("GetItem", entry["Get"])
            if status != 200:
                return status, headers, data
            responses.append({"Item": answer["Item"]} if "Item" in answer else {})
        return reply_json(200, {"Responses": responses})


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="the engine's URL, e.g. http://127.0.0.1:4610")
    args = parser.parse_args()
    upstream = urllib.parse.urlsplit(args.upstream)
    Handler.upstream = Upstream(upstream.hostname, upstream.port)
    server = Server(("127.0.0.1", args.port), Handler)
    server.serve_forever()


if __name__ == "__main__":
    main()
