#!/usr/bin/env python3
"""The local Pix institution (PSP): a stateful stand-in of a PSP's API Pix for the local stack.

Started by infra/run and infra/test like the moto server (Prism's proxy in front of it checks every
call against the Banco Central's contract). Python's standard library only; it shares no code with
the service, so what it computes (what a charge asks on a day) checks the service's own arithmetic.

  python3 infra/local/psp.py --port P [--tls-port Q --certs DIR]

- HTTP on 127.0.0.1:P (what Prism forwards to), and with --tls-port the same API over mutual TLS on
  127.0.0.1:Q: the client must present a certificate of DIR/ca.pem, as at a real PSP.
- OAuth 2.0 client credentials: POST /oauth/token with HTTP Basic, a client id starting with
  LOCAL_PSP_CLIENT_ID (default local-client) and the secret LOCAL_PSP_CLIENT_SECRET (default
  local-secret); every other API call wants the Bearer token (401 otherwise). Each client id is a
  receiving user of its own, as at a real PSP: its charges, webhooks and Pix are its own (the local
  stack's tables each use one: infra/src/ops/pix/local_psp.rs), so two tables' txids never meet.
- API Pix: PUT/PATCH/GET /cobv/{txid}, PUT/GET/DELETE /webhook/{chave}, GET /pix (inicio, fim,
  txid, paginacao.*), GET /pix/{e2eid}, PUT/GET /pix/{e2eid}/devolucao/{id}.
- The payer (not API Pix): POST /_local/pay {"client", "txid", "date"?, "valor"?, "notify"?} pays a charge as
  a payer's bank would: the amount the charge asks that day (the standard's multa, juros and
  desconto modalities) unless "valor" says otherwise, recorded as a Pix received, then (unless
  "notify" is false) POSTs {"pix": [...]} to the key's webhook URL + "/pix", over mutual TLS with
  DIR/psp-client.pem for an https URL, calling again while it fails (five attempts). POST /_local/notify {"client", "endToEndId"} calls the webhook again.
  POST /_local/charge {"client", "txid"} shows a charge with its Pix; GET /_local/state counts each
  client's; POST /_local/reset forgets everything.
"""

import argparse
import base64
import datetime as dt
import json
import os
import re
import secrets
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from decimal import ROUND_HALF_UP, Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BRT = dt.timezone(dt.timedelta(hours=-3))
TXID = re.compile(r"^[a-zA-Z0-9]{26,35}$")
CLIENT_ID = os.environ.get("LOCAL_PSP_CLIENT_ID", "local-client")
CLIENT_SECRET = os.environ.get("LOCAL_PSP_CLIENT_SECRET", "local-secret")
ISPB = "99999999"
LOCK = threading.Lock()
STATE = {"tokens": {}, "clients": {}, "calls": 0, "webhook_calls": []}


def user(client):
    """The state of one receiving user (a client id): its charges, webhooks and Pix received."""
    return STATE["clients"].setdefault(client, {"cobv": {}, "webhooks": {}, "pix": {}})
CERTS = None


def now():
    return dt.datetime.now(BRT).replace(microsecond=0)


def stamp(at):
    return at.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")


def cents(value):
    return Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def crc16(payload):
    crc = 0xFFFF
    for byte in payload.encode("utf-8"):
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return f"{crc:04X}"


def emv(tag, value):
    return f"{tag}{len(value):02d}{value}"


def br_code(location, name="RECEBEDOR LOCAL", city="SAO PAULO"):
    """A dynamic BR Code (EMV QRCPS-MPM as the Banco Central's manual writes it) for a location."""
    account = emv("00", "br.gov.bcb.pix") + emv("25", location)
    payload = (
        emv("00", "01") + emv("01", "12") + emv("26", account) + emv("52", "0000") + emv("53", "986")
        + emv("58", "BR") + emv("59", name[:25]) + emv("60", city[:15]) + emv("62", emv("05", "***")) + "6304"
    )
    return payload + crc16(payload)


def payable(cobv, day):
    """What the charge asks when paid on `day` (a date), by the API Pix's modalities; None when it
    can no longer be paid. Returns (total, components)."""
    valor = cobv["valor"]
    original = Decimal(valor["original"])
    due = dt.date.fromisoformat(cobv["calendario"]["dataDeVencimento"])
    after = int(cobv["calendario"].get("validadeAposVencimento", 30))
    if day > due + dt.timedelta(days=after):
        return None, {}
    parts = {"original": {"valor": f"{original:.2f}"}}
    total = original
    if day <= due:
        desconto = valor.get("desconto")
        if desconto and desconto.get("descontoDataFixa"):
            mode = int(desconto["modalidade"])
            for entry in sorted(desconto["descontoDataFixa"], key=lambda e: e["data"]):
                if day <= dt.date.fromisoformat(entry["data"]):
                    value = Decimal(entry["valorPerc"])
                    off = value if mode == 1 else cents(original * value / 100)
                    parts["desconto"] = {"valor": f"{off:.2f}"}
                    total -= off
                    break
    else:
        late = (day - due).days
        multa = valor.get("multa")
        if multa:
            value = Decimal(multa["valorPerc"])
            fine = value if int(multa["modalidade"]) == 1 else cents(original * value / 100)
            parts["multa"] = {"valor": f"{fine:.2f}"}
            total += fine
        juros = valor.get("juros")
        if juros:
            value, mode = Decimal(juros["valorPerc"]), int(juros["modalidade"])
            if mode == 1:  # a value per calendar day
                interest = value * late
            elif mode == 2:  # a percent per calendar day
                interest = cents(original * value / 100 * late)
            else:  # mode 3: a percent per month, calendar days (a month of 30 days)
                interest = cents(original * value / 100 / 30 * late)
            parts["juros"] = {"valor": f"{interest:.2f}"}
            total += interest
    return cents(total), parts


def problem(status, title, detail):
    return status, {"type": f"https://pix.bcb.gov.br/api/v2/error/{title}", "title": title, "status": status, "detail": detail}


def full_cobv(cobv, mine):
    out = {k: v for k, v in cobv.items() if not k.startswith("_")}
    out["pix"] = [strip(mine["pix"][e]) for e in cobv["_pix"]]
    return out


def strip(pix):
    return {k: v for k, v in pix.items() if not k.startswith("_")}


def make_cobv(mine, txid, body, existing=None):
    created = existing["calendario"]["criacao"] if existing else stamp(now())
    location_id = existing["loc"]["id"] if existing else len(mine["cobv"]) + 1
    location = f"pix.local/qr/v2/cobv/{uuid.uuid5(uuid.NAMESPACE_URL, txid).hex}"
    cobv = {
        "calendario": {"criacao": created, **body["calendario"]},
        "txid": txid,
        "revisao": existing["revisao"] + 1 if existing else 0,
        "loc": {"id": location_id, "txid": txid, "location": location, "tipoCob": "cobv", "criacao": created},
        "location": location,
        "status": body.get("status", "ATIVA"),
        "devedor": body["devedor"],
        "recebedor": {"cnpj": "12345678000195", "nome": "Recebedor Local", "logradouro": "Rua Local, 1",
                      "cidade": "Sao Paulo", "uf": "SP", "cep": "01001000"},
        "valor": body["valor"],
        "chave": body["chave"],
        "pixCopiaECola": br_code(location),
        "_pix": existing["_pix"] if existing else [],
    }
    if body.get("solicitacaoPagador"):
        cobv["solicitacaoPagador"] = body["solicitacaoPagador"]
    return cobv


def call_webhook(mine, chave, pix):
    """POSTs the Pix to the key's webhook, as a PSP does; returns the status (or the error)."""
    url = mine["webhooks"].get(chave, {}).get("webhookUrl")
    if not url:
        return "no webhook"
    target = url.rstrip("/") + "/pix"
    data = json.dumps({"pix": [strip(pix)]}).encode()
    request = urllib.request.Request(target, data=data, method="POST", headers={"Content-Type": "application/json"})
    context = None
    if target.startswith("https:") and CERTS:
        context = ssl.create_default_context(cafile=os.path.join(CERTS, "ca.pem"))
        context.load_cert_chain(os.path.join(CERTS, "psp-client.pem"), os.path.join(CERTS, "psp-client.key"))
    # A PSP calls again while the webhook fails (here: five attempts over about four seconds).
    for wait in (0.2, 0.5, 1, 2, None):
        try:
            with urllib.request.urlopen(request, timeout=15, context=context) as answer:
                result = answer.status
        except urllib.error.HTTPError as error:
            result = error.code
        except Exception as error:  # noqa: BLE001 - a PSP logs and retries later
            result = f"error: {error}"
        if isinstance(result, int) and 200 <= result < 300 or wait is None:
            break
        time.sleep(wait)
    with LOCK:
        STATE["webhook_calls"].append({"url": target, "endToEndId": pix["endToEndId"], "result": result})
    return result


def e2e_id():
    return "E" + ISPB + now().strftime("%Y%m%d%H%M") + secrets.token_hex(6)[:11]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "local-psp/1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=None, content_type="application/json"):
        data = b"" if body is None else json.dumps(body).encode()
        if status >= 400 and body is not None:
            content_type = "application/problem+json"
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        """The client the Bearer token was given to, while it is valid."""
        header = self.headers.get("Authorization", "")
        token = header[7:] if header.startswith("Bearer ") else None
        client, expires = STATE["tokens"].get(token, (None, None))
        return client if expires is not None and expires > now() else None

    def route(self, method):
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, dict(urllib.parse.parse_qsl(url.query))
        # The body is read whatever it is: left unread it would run into the next request of a
        # kept-alive connection (the token's form is not JSON, and is not needed).
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw and not path.startswith("/oauth") else ({} if raw else None)
        except ValueError:
            return self.answer(*problem(400, "RequisicaoInvalida", "corpo não é JSON"))
        with LOCK:
            STATE["calls"] += 1
        if path == "/oauth/token" and method == "POST":
            return self.token()
        if path.startswith("/_local/"):
            return self.local(method, path, body)
        client = self.authorized()
        if not client:
            return self.answer(*problem(401, "NaoAutorizado", "token ausente, inválido ou expirado"))
        with LOCK:
            mine = user(client)
        parts = path.strip("/").split("/")
        if parts[0] == "cobv" and len(parts) == 2:
            return self.cobv(mine, method, urllib.parse.unquote(parts[1]), body)
        if parts[0] == "webhook" and len(parts) == 2:
            return self.webhook(mine, method, urllib.parse.unquote(parts[1]), body)
        if parts == ["pix"] and method == "GET":
            return self.list_pix(mine, query)
        if parts[0] == "pix" and len(parts) == 2 and method == "GET":
            pix = mine["pix"].get(parts[1])
            return self.answer(200, strip(pix)) if pix else self.answer(*problem(404, "PixNaoEncontrado", "Pix não encontrado"))
        if parts[0] == "pix" and len(parts) == 4 and parts[2] == "devolucao":
            return self.refund(mine, method, parts[1], parts[3], body)
        return self.answer(*problem(404, "NaoEncontrado", f"{method} {path}"))

    def token(self):
        header = self.headers.get("Authorization", "")
        try:
            client, _, password = base64.b64decode(header[6:]).decode().partition(":") if header.startswith("Basic ") else ("", "", "")
        except ValueError:
            client = password = ""
        if not client.startswith(CLIENT_ID) or password != CLIENT_SECRET:
            return self.answer(401, {"error": "invalid_client"})
        token = secrets.token_urlsafe(24)
        with LOCK:
            STATE["tokens"][token] = (client, now() + dt.timedelta(seconds=3600))
        return self.answer(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": "cobv.write cobv.read pix.read pix.write webhook.write webhook.read"})

    def cobv(self, mine, method, txid, body):
        if not TXID.match(txid):
            return self.answer(*problem(400, "CobVOperacaoInvalida", "txid inválido"))
        with LOCK:
            existing = mine["cobv"].get(txid)
            if method == "GET":
                return self.answer(200, full_cobv(existing, mine)) if existing else self.answer(*problem(404, "CobVNaoEncontrada", "cobrança não encontrada"))
            if method == "PUT":
                if existing:
                    return self.answer(*problem(400, "CobVOperacaoInvalida", "txid já utilizado"))
                missing = [f for f in ("calendario", "devedor", "valor", "chave") if f not in body]
                if missing or "dataDeVencimento" not in body["calendario"]:
                    return self.answer(*problem(400, "CobVOperacaoInvalida", f"campos ausentes: {missing}"))
                mine["cobv"][txid] = make_cobv(mine, txid, body)
                return self.answer(201, full_cobv(mine["cobv"][txid], mine) | {"pix": []})
            if method == "PATCH":
                if not existing:
                    return self.answer(*problem(404, "CobVNaoEncontrada", "cobrança não encontrada"))
                if existing["status"] != "ATIVA":
                    return self.answer(*problem(400, "CobVOperacaoInvalida", f"cobrança {existing['status']}"))
                merged = {k: body.get(k, existing[k]) for k in ("calendario", "devedor", "valor", "chave")}
                merged["calendario"] = {k: v for k, v in merged["calendario"].items() if k != "criacao"}
                merged["status"] = body.get("status", "ATIVA")
                merged["solicitacaoPagador"] = body.get("solicitacaoPagador", existing.get("solicitacaoPagador"))
                mine["cobv"][txid] = make_cobv(mine, txid, merged, existing)
                out = full_cobv(mine["cobv"][txid], mine)
                out.pop("pix")
                return self.answer(200, out)
        return self.answer(*problem(405, "MetodoNaoPermitido", method))

    def webhook(self, mine, method, chave, body):
        with LOCK:
            if method == "PUT":
                if not str(body.get("webhookUrl", "")).startswith(("https://", "http://")):
                    return self.answer(*problem(400, "WebhookOperacaoInvalida", "webhookUrl inválida"))
                mine["webhooks"][chave] = {"webhookUrl": body["webhookUrl"], "chave": chave, "criacao": stamp(now())}
                return self.answer(200)
            found = mine["webhooks"].get(chave)
            if not found:
                return self.answer(*problem(404, "WebhookNaoEncontrado", "webhook não encontrado"))
            if method == "DELETE":
                del mine["webhooks"][chave]
                return self.answer(204)
            return self.answer(200, found)

    def list_pix(self, mine, query):
        try:
            start = dt.datetime.fromisoformat(query["inicio"].replace("Z", "+00:00"))
            end = dt.datetime.fromisoformat(query["fim"].replace("Z", "+00:00"))
            page = int(query.get("paginacao.paginaAtual", 0))
            size = int(query.get("paginacao.itensPorPagina", 100))
        except (KeyError, ValueError):
            return self.answer(*problem(400, "ConsultaInvalida", "inicio e fim são obrigatórios (RFC 3339)"))
        with LOCK:
            found = [p for p in mine["pix"].values() if start <= p["_at"] <= end and (not query.get("txid") or p.get("txid") == query["txid"])]
        found.sort(key=lambda p: p["_at"])
        pages = max(1, -(-len(found) // max(size, 1)))
        items = [strip(p) for p in found[page * size:(page + 1) * size]]
        parametros = {"inicio": query["inicio"], "fim": query["fim"], "paginacao": {
            "paginaAtual": page, "itensPorPagina": size, "quantidadeDePaginas": pages, "quantidadeTotalDeItens": len(found)}}
        return self.answer(200, {"parametros": parametros, "pix": items})

    def refund(self, mine, method, e2e, refund_id, body):
        with LOCK:
            pix = mine["pix"].get(e2e)
            if not pix:
                return self.answer(*problem(404, "PixNaoEncontrado", "Pix não encontrado"))
            found = next((d for d in pix.get("devolucoes", []) if d["id"] == refund_id), None)
            if method == "GET":
                return self.answer(200, found) if found else self.answer(*problem(404, "DevolucaoNaoEncontrada", "devolução não encontrada"))
            if found:
                return self.answer(201, found)
            value = cents(body.get("valor", "0"))
            refunded = sum(Decimal(d["valor"]) for d in pix.get("devolucoes", []))
            if value <= 0 or value + refunded > Decimal(pix["valor"]):
                return self.answer(*problem(400, "DevolucaoOperacaoInvalida", "valor acima do disponível"))
            at = stamp(now())
            refund = {"id": refund_id, "rtrId": "D" + ISPB + now().strftime("%Y%m%d%H%M") + secrets.token_hex(6)[:11],
                      "valor": f"{value:.2f}", "horario": {"solicitacao": at, "liquidacao": at}, "status": "DEVOLVIDO"}
            pix.setdefault("devolucoes", []).append(refund)
            return self.answer(201, refund)

    def local(self, method, path, body):
        body = body or {}
        if path == "/_local/charge" and method == "POST":
            with LOCK:
                mine = user(body.get("client", ""))
                cobv = mine["cobv"].get(body.get("txid", ""))
                return self.answer(200, full_cobv(cobv, mine)) if cobv else self.answer(404, {"detail": "cobrança não encontrada"})
        if path == "/_local/state":
            with LOCK:
                return self.answer(200, {"clients": {c: {"charges": len(u["cobv"]), "pix": len(u["pix"]), "webhooks": u["webhooks"]}
                                                     for c, u in STATE["clients"].items()},
                                         "calls": STATE["calls"], "webhook_calls": STATE["webhook_calls"][-100:]})
        if path == "/_local/reset" and method == "POST":
            with LOCK:
                STATE["tokens"].clear()
                STATE["clients"].clear()
                STATE["webhook_calls"].clear()
            return self.answer(200, {})
        if path == "/_local/pay" and method == "POST":
            return self.pay(body)
        if path == "/_local/notify" and method == "POST":
            with LOCK:
                mine = user(body.get("client", ""))
                pix = mine["pix"].get(body.get("endToEndId", ""))
            if not pix:
                return self.answer(404, {"detail": "Pix não encontrado"})
            return self.answer(200, {"webhook": call_webhook(mine, pix["_chave"], pix)})
        return self.answer(404, {"detail": path})

    def pay(self, body):
        txid = body.get("txid", "")
        day = dt.date.fromisoformat(body["date"]) if body.get("date") else now().date()
        with LOCK:
            mine = user(body.get("client", ""))
            cobv = mine["cobv"].get(txid)
            if not cobv:
                return self.answer(404, {"detail": f"cobrança {txid} não encontrada"})
            if cobv["status"] != "ATIVA":
                return self.answer(409, {"detail": f"cobrança {cobv['status']}: não aceita pagamento"})
            total, parts = payable(cobv, day)
            if total is None:
                return self.answer(409, {"detail": f"cobrança vencida e fora da validade em {day}"})
            value = cents(body["valor"]) if body.get("valor") else total
            at = dt.datetime.combine(day, now().timetz())
            pix = {"endToEndId": e2e_id(), "txid": txid, "valor": f"{value:.2f}", "horario": stamp(at),
                   "infoPagador": "pago no ambiente local", "_at": at, "_chave": cobv["chave"]}
            if not body.get("valor"):
                pix["componentesValor"] = parts
            mine["pix"][pix["endToEndId"]] = pix
            cobv["_pix"].append(pix["endToEndId"])
            cobv["status"] = "CONCLUIDA"
        result = call_webhook(mine, cobv["chave"], pix) if body.get("notify", True) else "not called"
        return self.answer(200, {"endToEndId": pix["endToEndId"], "valor": pix["valor"], "horario": pix["horario"], "webhook": result})

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_PUT(self):
        self.route("PUT")

    def do_PATCH(self):
        self.route("PATCH")

    def do_DELETE(self):
        self.route("DELETE")


def serve(server):
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main():
    global CERTS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls-port", type=int)
    parser.add_argument("--certs")
    args = parser.parse_args()
    CERTS = args.certs
    ThreadingHTTPServer.daemon_threads = True
    plain = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    if args.tls_port:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(CERTS, "psp-server.pem"), os.path.join(CERTS, "psp-server.key"))
        context.load_verify_locations(os.path.join(CERTS, "ca.pem"))
        context.verify_mode = ssl.CERT_REQUIRED
        tls = ThreadingHTTPServer(("127.0.0.1", args.tls_port), Handler)
        tls.socket = context.wrap_socket(tls.socket, server_side=True)
        serve(tls)
    print(f"local PSP on http://127.0.0.1:{args.port}" + (f" and https://127.0.0.1:{args.tls_port} (mTLS)" if args.tls_port else ""), flush=True)
    try:
        plain.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
