#!/usr/bin/env python3
"""The local WhatsApp sender: a stand-in of AWS End User Messaging Social's SendWhatsAppMessage.

moto has no End User Messaging Social; the service's SDK client (aws-sdk-socialmessaging) is pointed
here instead (AWS_ENDPOINT_URL_SOCIALMESSAGING=http://127.0.0.1:P, or the client's endpoint_url where
the per-service variable is not read: lib/src/config.rs on Lambda). Python's standard library only.

  python3 infra/local/whatsapp.py --port P

- POST /v1/whatsapp/send, the SDK's request (restJson1): {"originationPhoneNumberId", "metaApiVersion",
  "message": base64 of a WhatsApp Cloud API message}. Checked as far as the service's messages go:
  the phone number id starts with "phone-number-id-", metaApiVersion looks like v20.0, the message is
  JSON with messaging_product "whatsapp", "to" in E.164 (+ and 8 to 15 digits), type "template", a
  template name and language code, components' parameters, biz_opaque_callback_data a string of at most
  512 characters. Accepted: 200 {"messageId": "<uuid>"}, recorded. Refused: 400 with the header
  x-amzn-ErrorType: ValidationException and {"message": "..."}, which the SDK reads as
  SendWhatsAppMessageError::ValidationException.
- GET /_sent[?to=+55...] lists what was accepted, oldest first: originationPhoneNumberId,
  metaApiVersion, to, template, language, body (the body's text parameters), buttons, components,
  biz_opaque_callback_data, messageId, received. POST /_reset forgets them and the armed failures.
- POST /_fail {"to", "status": 500 | 429 | 400, "times": N (default 1), "message"?}: the next N valid
  sends to that number answer InternalServiceException (500), ThrottledRequestException (429) or
  ValidationException (400), then sends succeed again; "times": 0 disarms. GET /_fail shows what is
  armed and how many failures were injected. Each HTTP attempt counts: the SDK retries the 500 and 429
  ones by itself (five attempts with lib/src/config.rs's retries), so N of 4 or less never reaches
  the caller.
- Requests over 64 KiB are refused with 413 (the connection is then closed); binds 127.0.0.1 only.

What it lacks: SigV4 is not checked (any or no Authorization is accepted); no message type but
templates; templates are not looked up (any name and parameters pass); no delivery: it sends no status
events (sent, delivered, read, failed) to SNS — tests publish those themselves; no media upload, no
other operation of the service.
"""

import argparse
import base64
import binascii
import datetime as dt
import json
import re
import sys
import threading
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 64 * 1024
E164 = re.compile(r"^\+[1-9][0-9]{7,14}$")
API_VERSION = re.compile(r"^v[0-9]+(\.[0-9]+)?$")
PHONE_NUMBER_ID = "phone-number-id-"
FAULTS = {500: "InternalServiceException", 429: "ThrottledRequestException", 400: "ValidationException"}
LOCK = threading.Lock()
STATE = {"sent": [], "faults": {}, "injected": 0}


def stamp():
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def log(line):
    print(f"{stamp()} {line}", flush=True)


class Invalid(Exception):
    """A request the real service would refuse with ValidationException."""


def check_template(template):
    """The template part of a message: (name, language code, body texts, buttons, components)."""
    if not isinstance(template, dict):
        raise Invalid("template must be an object")
    name = template.get("name")
    if not isinstance(name, str) or not name.strip():
        raise Invalid("template.name is required")
    language = template.get("language")
    code = language.get("code") if isinstance(language, dict) else None
    if not isinstance(code, str) or not code.strip():
        raise Invalid("template.language.code is required")
    components = template.get("components", [])
    if not isinstance(components, list):
        raise Invalid("template.components must be a list")
    body, buttons = [], []
    for number, component in enumerate(components):
        where = f"template.components[{number}]"
        if not isinstance(component, dict) or not isinstance(component.get("type"), str):
            raise Invalid(f"{where} must be an object with a type")
        parameters = component.get("parameters", [])
        if not isinstance(parameters, list) or not all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in parameters):
            raise Invalid(f"{where}.parameters must be a list of objects with a type")
        for p in parameters:
            if p["type"] == "text" and not isinstance(p.get("text"), str):
                raise Invalid(f"{where}: a text parameter needs a text")
        kind = component["type"].lower()
        if kind == "body":
            body.extend(p.get("text") for p in parameters if p["type"] == "text")
        elif kind == "button":
            if not isinstance(component.get("sub_type"), str) or str(component.get("index", "")) == "":
                raise Invalid(f"{where}: a button needs a sub_type and an index")
            buttons.append({"sub_type": component["sub_type"], "index": str(component["index"]),
                            "parameters": [p.get("text", p.get("payload")) for p in parameters]})
    return name, code, body, buttons, components


def check_send(body):
    """The SDK's request body, checked and decoded: the record to keep (without its id and time)."""
    if not isinstance(body, dict):
        raise Invalid("the request body must be a JSON object")
    origin = body.get("originationPhoneNumberId")
    if not isinstance(origin, str) or not origin.startswith(PHONE_NUMBER_ID) or len(origin) == len(PHONE_NUMBER_ID):
        raise Invalid(f"originationPhoneNumberId must look like {PHONE_NUMBER_ID}0123...")
    version = body.get("metaApiVersion")
    if not isinstance(version, str) or not API_VERSION.match(version):
        raise Invalid("metaApiVersion must look like v20.0")
    encoded = body.get("message")
    if not isinstance(encoded, str) or not encoded:
        raise Invalid("message is required")
    try:
        message = json.loads(base64.b64decode(encoded, validate=True).decode("utf-8"))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise Invalid("message must be base64 of a JSON WhatsApp message") from None
    if not isinstance(message, dict):
        raise Invalid("message must be a JSON object")
    if message.get("messaging_product") != "whatsapp":
        raise Invalid('messaging_product must be "whatsapp"')
    to = message.get("to")
    if not isinstance(to, str) or not E164.match(to):
        raise Invalid(f"to must be an E.164 number (+ and 8 to 15 digits), not {to!r}")
    if message.get("type") != "template":
        raise Invalid(f'type must be "template" here, not {message.get("type")!r}')
    name, code, texts, buttons, components = check_template(message.get("template"))
    callback = message.get("biz_opaque_callback_data")
    if callback is not None and (not isinstance(callback, str) or len(callback) > 512):
        raise Invalid("biz_opaque_callback_data must be a string of at most 512 characters")
    return {"originationPhoneNumberId": origin, "metaApiVersion": version, "to": to, "template": name,
            "language": code, "body": texts, "buttons": buttons, "components": components,
            "biz_opaque_callback_data": callback}


def armed_fault(to):
    """The failure armed for `to`, counted down, or None."""
    with LOCK:
        fault = STATE["faults"].get(to)
        if not fault:
            return None
        fault["times"] -= 1
        if fault["times"] <= 0:
            del STATE["faults"][to]
        STATE["injected"] += 1
        return dict(fault)


class TooLarge(Exception):
    pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "local-whatsapp/1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-amzn-RequestId", str(uuid.uuid4()))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, code, message):
        """An error as restJson1 has it: the code in x-amzn-ErrorType, the text in "message"."""
        self.answer(status, {"message": message}, {"x-amzn-ErrorType": code})

    def read_body(self):
        """The request's body, at most MAX_BODY bytes (Content-Length or chunked)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                if len(data) + size > MAX_BODY:
                    raise TooLarge()
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise TooLarge()
        return self.rfile.read(length) if length > 0 else b""

    def route(self, method):
        url = urllib.parse.urlsplit(self.path)
        try:
            raw = self.read_body()
        except TooLarge:
            self.close_connection = True
            return self.error(413, "ValidationException", f"request body over {MAX_BODY} bytes")
        except ValueError:
            self.close_connection = True
            return self.error(400, "ValidationException", "unreadable request body")
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = ValueError
        if url.path == "/v1/whatsapp/send" and method == "POST":
            return self.send_message(body)
        if body is ValueError:
            return self.answer(400, {"message": "the body is not JSON"})
        if url.path == "/_sent" and method == "GET":
            to = dict(urllib.parse.parse_qsl(url.query)).get("to")
            with LOCK:
                sent = [m for m in STATE["sent"] if to is None or m["to"] == to]
            return self.answer(200, sent)
        if url.path == "/_reset" and method == "POST":
            with LOCK:
                STATE["sent"].clear()
                STATE["faults"].clear()
                STATE["injected"] = 0
            return self.answer(200, {})
        if url.path == "/_fail" and method == "POST":
            return self.arm(body or {})
        if url.path == "/_fail" and method == "GET":
            with LOCK:
                return self.answer(200, {"armed": STATE["faults"], "injected": STATE["injected"]})
        return self.answer(404, {"message": f"no route: {method} {url.path}"})

    def send_message(self, body):
        try:
            if body is ValueError:
                raise Invalid("the request body is not JSON")
            record = check_send(body)
        except Invalid as invalid:
            log(f"refused: {invalid}")
            return self.error(400, "ValidationException", str(invalid))
        fault = armed_fault(record["to"])
        if fault:
            code = FAULTS[fault["status"]]
            log(f"injected {fault['status']} {code} for {record['to']} ({fault['times']} more)")
            return self.error(fault["status"], code, fault.get("message") or f"injected failure ({code})")
        record["messageId"] = str(uuid.uuid4())
        record["received"] = stamp()
        with LOCK:
            STATE["sent"].append(record)
        log(f"sent {record['template']} to {record['to']}: {record['messageId']}")
        return self.answer(200, {"messageId": record["messageId"]})

    def arm(self, body):
        to, status, times = body.get("to"), body.get("status"), body.get("times", 1)
        if not isinstance(to, str) or not E164.match(to):
            return self.answer(400, {"message": "to must be an E.164 number"})
        if status not in FAULTS:
            return self.answer(400, {"message": f"status must be one of {sorted(FAULTS)}"})
        if not isinstance(times, int) or isinstance(times, bool) or times < 0:
            return self.answer(400, {"message": "times must be a whole number, 0 or more"})
        message = body.get("message")
        if message is not None and not isinstance(message, str):
            return self.answer(400, {"message": "message must be a string"})
        with LOCK:
            if times == 0:
                STATE["faults"].pop(to, None)
            else:
                STATE["faults"][to] = {"status": status, "times": times, "message": message}
        return self.answer(200, {"to": to, "status": status, "times": times})

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_PUT(self):
        self.route("PUT")

    def do_DELETE(self):
        self.route("DELETE")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True, help="port on 127.0.0.1 (0: any free one)")
    args = parser.parse_args()
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"local WhatsApp sender on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
