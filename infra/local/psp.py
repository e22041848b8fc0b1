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
  client's (charges, Pix, recurrences, recurring charges); POST /_local/reset forgets everything.
- API Pix, Pix Automático (journey 2: the payer approves a recurrence by its QR): POST /locrec,
  GET /locrec/{id}, POST /rec, GET/PATCH /rec/{idRec} (PATCH only cancels: {"status": "CANCELADA"}, which
  cancels its recurring charges still CRIADA or ATIVA), PUT/GET/DELETE /webhookrec and /webhookcobr (one
  URL per client), PUT/GET/PATCH /cobr/{txid} (PATCH only cancels), POST /cobr/{txid}/retentativa/{data}.
  A recurring charge is ATIVA once created, with its first attempt (AGND) AGENDADA on its due date;
  PERMITE_3R_7D allows up to 3 retries (RIFL), each on a future day at most 7 days after the due date.
- The payer and its PSP (not API Pix), each calling the client's webhookrec URL + "/rec" ({"recs": [...]})
  or webhookcobr URL + "/cobr" ({"cobsr": [...]}) as /_local/pay calls the key's webhook:
  POST /_local/rec/approve {"client", "idRec" or "pixCopiaECola" (the QR code scanned), "cpf"?, "cnpj"?}
  (CRIADA -> APROVADA, journey 2; the payer
  is the devedor unless cpf or cnpj says otherwise), POST /_local/rec/reject {"client", "idRec"} (CRIADA ->
  REJEITADA, AP13), POST /_local/rec/cancel {"client", "idRec"} (APROVADA -> CANCELADA by the payer, ACCL);
  POST /_local/cobr/settle {"client", "txid", "notify"?} pays the AGENDADA attempt (a Pix received, seen
  by GET /pix and refundable; its webhook is the /cobr one, not the key's /pix one), POST /_local/cobr/fail
  {"client", "txid", "codigo"? (AM02), "notify"?} rejects it: the charge stays ATIVA while its recurrence
  allows a retry (PERMITE_3R_7D, fewer than 3 made, a code that does not reject the charge), else it
  becomes REJEITADA.
"""

import argparse
import base64
import datetime as dt
import json
import os
import re
import secrets
import ssl
import string
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
AMOUNT = re.compile(r"^\d{1,10}\.\d{2}$")
ALNUM = string.ascii_letters + string.digits
SCOPE = " ".join(f"{api}.{access}" for api in ("cobv", "pix", "webhook", "rec", "cobr", "payloadlocationrec",
                                               "webhookrec", "webhookcobr") for access in ("write", "read"))
ONLY_CANCEL = 'o PSP local só cancela: {"status": "CANCELADA"}'
# Pix Automático: PERMITE_3R_7D allows 3 retries within 7 days after the due date. An attempt is
# rejected with one of ATTEMPT_CODES; those of REJECT_COBR also reject the recurring charge (the
# contract's CobRTentativas.rejeicao).
RETRIES, RETRY_DAYS = 3, 7
ATTEMPT_CODES = "AB10 AC05 AC06 AM02 AM09 DENC DS27 DTED DTNT FBRD IRNT MIDI MSUC NIEC NIPA NITX QUNT RC09 UDEI".split()
REJECT_COBR = {"AC05", "AM09", "DENC", "DS27", "DTED", "MIDI", "MSUC", "NITX", "RC09"}
CLIENT_ID = os.environ.get("LOCAL_PSP_CLIENT_ID", "local-client")
CLIENT_SECRET = os.environ.get("LOCAL_PSP_CLIENT_SECRET", "local-secret")
ISPB = "99999999"
LOCK = threading.Lock()
STATE = {"tokens": {}, "clients": {}, "calls": 0, "webhook_calls": []}


def user(client):
    """The state of one receiving user (a client id): its charges, webhooks and Pix received, and its Pix
    Automático recurrences, their locations, its recurring charges and its two webhooks (one URL each)."""
    return STATE["clients"].setdefault(client, {"cobv": {}, "webhooks": {}, "pix": {}, "locrec": {}, "rec": {},
                                                "cobr": {}, "webhookrec": None, "webhookcobr": None})
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


def br_code(location, name="RECEBEDOR LOCAL", city="SAO PAULO", rec_location=None):
    """A dynamic BR Code (EMV QRCPS-MPM as the Banco Central's manual writes it) for a location; with
    rec_location, a Pix Automático recurrence's location in ID 80 too (alone when location is None)."""
    account = emv("26", emv("00", "br.gov.bcb.pix") + emv("25", location)) if location else ""
    recurrence = emv("80", emv("00", "br.gov.bcb.pix") + emv("25", rec_location)) if rec_location else ""
    payload = (
        emv("00", "01") + emv("01", "12") + account + emv("52", "0000") + emv("53", "986") + emv("58", "BR")
        + emv("59", name[:25]) + emv("60", city[:15]) + emv("62", emv("05", "***")) + recurrence + "6304"
    )
    return payload + crc16(payload)


def br_code_rec(location):
    """The recurrence QR of journey 2: the BR Code whose ID 80 (GUI br.gov.bcb.pix) carries the locrec's location."""
    return br_code(None, rec_location=location)


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


def deliver(hook, suffix, payload, record):
    """POSTs a notification to a webhook's URL + suffix (/pix, /rec or /cobr), as a PSP does: over mutual TLS
    with DIR/psp-client.pem for an https URL, calling again while it fails. Each call is recorded in
    STATE["webhook_calls"] with `record` (what it was about); returns the status (or the error)."""
    url = (hook or {}).get("webhookUrl")
    if not url:
        return "no webhook"
    target = url.rstrip("/") + suffix
    data = json.dumps(payload).encode()
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
        STATE["webhook_calls"].append({"url": target, **record, "result": result})
    return result


def call_webhook(mine, chave, pix):
    """POSTs the Pix to the key's webhook (its URL + "/pix"); a Pix Automático (no key) calls none."""
    return deliver(mine["webhooks"].get(chave), "/pix", {"pix": [strip(pix)]}, {"endToEndId": pix["endToEndId"]})


def changed(entry, status):
    """Sets the status of a recurrence, recurring charge or attempt, and records it in its atualizacao."""
    entry["status"] = status
    entry.setdefault("atualizacao", []).append({"status": status, "data": stamp(now())})


def full_rec(mine, rec, qr=False):
    """A recurrence as the API Pix answers it: its loc whole, and (GET) the journey 2 QR while it has a loc."""
    out = {k: v for k, v in rec.items() if not k.startswith("_")}
    loc = mine["locrec"].get(rec["_loc"])
    if loc:
        out["loc"] = dict(loc)
        if qr:
            out["dadosQR"] = {"jornada": "JORNADA_2", "pixCopiaECola": br_code_rec(loc["location"])}
    return out


def rec_notice(rec):
    """A recurrence as webhookrec notifies it (RecNotification)."""
    return {k: rec[k] for k in ("idRec", "status", "atualizacao", "encerramento", "ativacao") if k in rec}


def pix_automatico(pix):
    """A Pix received for a recurring charge, as a CobR lists it (PixAutomatico)."""
    return {k: pix[k] for k in ("endToEndId", "txid", "valor", "horario", "infoPagador", "devolucoes") if k in pix}


def full_cobr(mine, cobr):
    """A recurring charge as the API Pix answers it (CobRCompleta; also a valid CobRGerada)."""
    out = {k: v for k, v in cobr.items() if not k.startswith("_")}
    out["politicaRetentativa"] = mine["rec"][cobr["idRec"]]["politicaRetentativa"]
    out["pix"] = [pix_automatico(mine["pix"][e]) for e in cobr["_pix"]]
    return out


def cobr_notice(mine, cobr):
    """A recurring charge as webhookcobr notifies it (CobRNotification)."""
    out = full_cobr(mine, cobr)
    keys = ("idRec", "txid", "status", "atualizacao", "encerramento", "tentativas", "pix")
    return {k: out[k] for k in keys if k in out}


def attempt(kind, day):
    """A settlement attempt of a recurring charge (AGND: the first, on the due date; RIFL: a retry), AGENDADA."""
    entry = {"dataLiquidacao": day, "tipo": kind, "endToEndId": e2e_id()}
    changed(entry, "AGENDADA")
    return entry


def end_cobr(cobr, status, encerramento):
    """Closes a recurring charge (CANCELADA or REJEITADA); its attempts still pending are cancelled."""
    for entry in cobr["tentativas"]:
        if entry["status"] in ("AGENDADA", "SOLICITADA"):
            changed(entry, "CANCELADA")
    changed(cobr, status)
    cobr["encerramento"] = encerramento


def cancel_rec(mine, rec, solicitante, codigo, cobr_codigo, who):
    """Cancels a recurrence, and its recurring charges still CRIADA or ATIVA (cobr_codigo: theirs)."""
    changed(rec, "CANCELADA")
    rec["encerramento"] = {"cancelamento": {"solicitante": solicitante, "codigo": codigo,
                                            "descricao": f"cancelamento solicitado pelo {who}"}}
    for cobr in mine["cobr"].values():
        if cobr["idRec"] == rec["idRec"] and cobr["status"] in ("CRIADA", "ATIVA"):
            end_cobr(cobr, "CANCELADA", {"cancelamento": {"solicitante": solicitante, "codigo": cobr_codigo,
                                                          "descricao": f"recorrência cancelada pelo {who}"}})


def day_of(value):
    """A YYYY-MM-DD date, or None."""
    try:
        return dt.date.fromisoformat(value) if isinstance(value, str) and len(value) == 10 else None
    except ValueError:
        return None


def obj(value):
    """A JSON object of a body, or {} (what a schema-breaking body, which Prism would refuse, is taken as)."""
    return value if isinstance(value, dict) else {}


def rec_violations(mine, body):
    """What makes a POST /rec body invalid (RecOperacaoInvalida: the contract's list); empty when none."""
    vinculo, calendario, valor = obj(body.get("vinculo")), obj(body.get("calendario")), obj(body.get("valor"))
    devedor = obj(vinculo.get("devedor"))
    wrong = []
    if not vinculo.get("contrato") or not devedor.get("nome") or bool(devedor.get("cpf")) == bool(devedor.get("cnpj")):
        wrong.append("rec.vinculo não respeita o schema (contrato, devedor com nome e cpf ou cnpj)")
    start, end = day_of(calendario.get("dataInicial")), day_of(calendario.get("dataFinal"))
    if not start:
        wrong.append("rec.calendario.dataInicial ausente ou inválida")
    elif start < now().date():
        wrong.append("rec.calendario.dataInicial é anterior à data de criação da recorrência")
    if "dataFinal" in calendario and (not end or (start and end < start)):
        wrong.append("rec.calendario.dataFinal inválida ou anterior a rec.calendario.dataInicial")
    if calendario.get("periodicidade") not in ("SEMANAL", "MENSAL", "TRIMESTRAL", "SEMESTRAL", "ANUAL"):
        wrong.append("rec.calendario.periodicidade não respeita o schema")
    if "valorRec" in valor and "valorMinimoRecebedor" in valor:
        wrong.append("rec.valor.valorRec e rec.valor.valorMinimoRecebedor estão ambos preenchidos")
    if any(not AMOUNT.match(str(v)) for k, v in valor.items() if k in ("valorRec", "valorMinimoRecebedor")):
        wrong.append("rec.valor não respeita o schema")
    if body.get("politicaRetentativa") not in ("NAO_PERMITE", "PERMITE_3R_7D"):
        wrong.append("rec.politicaRetentativa não respeita o schema")
    loc = body.get("loc")
    found = mine["locrec"].get(loc) if isinstance(loc, int) and not isinstance(loc, bool) else None
    if not found:
        wrong.append("o location referenciado por rec.loc inexiste (loc é obrigatório: o PSP local faz a jornada 2)")
    elif found.get("idRec"):
        wrong.append("o location referenciado por rec.loc já está sendo utilizado por outra recorrência")
    return wrong


def make_rec(mine, body):
    """A recurrence CRIADA from a valid POST /rec body, its loc linked; idRec R + R|N + ISPB + date + 11."""
    policy = body["politicaRetentativa"]
    while True:
        suffix = "".join(secrets.choice(ALNUM) for _ in range(11))
        id_rec = "R" + ("R" if policy == "PERMITE_3R_7D" else "N") + ISPB + now().strftime("%Y%m%d") + suffix
        if id_rec not in mine["rec"]:
            break
    recebedor = {"cnpj": "12345678000195", "nome": "Recebedor Local"}
    if obj(body.get("recebedor")).get("convenio"):
        recebedor["convenio"] = body["recebedor"]["convenio"]
    ativacao = {"tipoJornada": "AGUARDANDO_DEFINICAO"}
    if obj(body.get("ativacao")).get("dadosJornada"):
        ativacao["dadosJornada"] = body["ativacao"]["dadosJornada"]
    rec = {"idRec": id_rec, "vinculo": body["vinculo"], "calendario": body["calendario"]}
    if body.get("valor"):
        rec["valor"] = body["valor"]
    rec |= {"politicaRetentativa": policy, "recebedor": recebedor, "ativacao": ativacao, "_loc": body["loc"]}
    changed(rec, "CRIADA")
    mine["locrec"][body["loc"]]["idRec"] = id_rec
    mine["rec"][id_rec] = rec
    return rec


def cobr_violations(mine, txid, body):
    """What makes a PUT /cobr/{txid} body invalid (CobROperacaoInvalida: the contract's list); empty when none."""
    calendario, valor, recebedor = obj(body.get("calendario")), obj(body.get("valor")), obj(body.get("recebedor"))
    due = day_of(calendario.get("dataDeVencimento"))
    wrong = []
    if txid in mine["cobr"]:
        wrong.append("cobr.txid encontra-se em uso")
    if not due:
        wrong.append("cobr.calendario não respeita o schema (dataDeVencimento)")
    elif due < now().date():
        wrong.append("cobr.calendario.dataDeVencimento é anterior à data de criação da cobrança")
    if not AMOUNT.match(str(valor.get("original", ""))):
        wrong.append("cobr.valor não respeita o schema (original)")
    if not isinstance(body.get("ajusteDiaUtil"), bool):
        wrong.append("cobr.ajusteDiaUtil ausente")
    if not recebedor.get("conta") or recebedor.get("tipoConta") not in ("CORRENTE", "POUPANCA", "PAGAMENTO"):
        wrong.append("cobr.recebedor não respeita o schema (conta, tipoConta)")
    rec = mine["rec"].get(body.get("idRec")) if isinstance(body.get("idRec"), str) else None
    if not rec:
        wrong.append("cobr.idRec: recorrência inexistente")
    elif rec["status"] != "APROVADA":
        wrong.append(f"cobr.idRec: recorrência {rec['status']}, não APROVADA")
    elif due and any(c["idRec"] == rec["idRec"] and c["calendario"]["dataDeVencimento"] == due.isoformat()
                     and c["status"] not in ("REJEITADA", "CANCELADA") for c in mine["cobr"].values()):
        wrong.append("existe uma CobR não REJEITADA nem CANCELADA da mesma recorrência nesse vencimento")
    return wrong


def make_cobr(mine, txid, body):
    """A recurring charge from a valid PUT /cobr body: ATIVA, its first attempt AGENDADA on the due date."""
    due = body["calendario"]["dataDeVencimento"]
    cobr = {"idRec": body["idRec"], "txid": txid,
            "calendario": {"criacao": now().date().isoformat(), "dataDeVencimento": due},
            "valor": {"original": body["valor"]["original"]}, "ajusteDiaUtil": body["ajusteDiaUtil"],
            "recebedor": {**body["recebedor"], "cnpj": "12345678000195", "nome": "Recebedor Local"}}
    for optional in ("infoAdicional", "devedor"):
        if body.get(optional):
            cobr[optional] = body[optional]
    changed(cobr, "CRIADA")
    changed(cobr, "ATIVA")
    cobr |= {"tentativas": [attempt("AGND", due)], "_pix": []}
    mine["cobr"][txid] = cobr
    return cobr


def retry_violations(rec, cobr, day):
    """Why a retry of the recurring charge on `day` is refused (CobROperacaoInvalida); None when allowed."""
    due = dt.date.fromisoformat(cobr["calendario"]["dataDeVencimento"])
    retries = sum(1 for t in cobr["tentativas"] if t["tipo"] == "RIFL")
    if rec["politicaRetentativa"] != "PERMITE_3R_7D":
        return "a política configurada na recorrência não permite retentativa de cobrança"
    if cobr["status"] != "ATIVA":
        return f"cobrança {cobr['status']}"
    if any(t["status"] in ("AGENDADA", "SOLICITADA") for t in cobr["tentativas"]):
        return "existe uma tentativa com status SOLICITADA ou AGENDADA"
    if not day or day <= now().date():
        return "o parâmetro data não corresponde a uma data futura (YYYY-MM-DD)"
    if day > due + dt.timedelta(days=RETRY_DAYS):
        last = due + dt.timedelta(days=RETRY_DAYS)
        return f"PERMITE_3R_7D: retentativa até {last} ({RETRY_DAYS} dias após o vencimento)"
    if retries >= RETRIES:
        return f"PERMITE_3R_7D: as {RETRIES} retentativas já foram feitas"
    return None


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
        if parts[0] == "locrec" and len(parts) <= 2:
            return self.locrec(mine, method, parts[1] if len(parts) == 2 else None)
        if parts[0] == "rec" and len(parts) <= 2:
            return self.rec(mine, method, urllib.parse.unquote(parts[1]) if len(parts) == 2 else None, body, query)
        if parts[0] in ("webhookrec", "webhookcobr") and len(parts) == 1:
            return self.webhook_rec(mine, method, parts[0], body)
        if parts[0] == "cobr" and len(parts) == 2:
            return self.cobr(mine, method, urllib.parse.unquote(parts[1]), body)
        if parts[0] == "cobr" and len(parts) == 4 and parts[2] == "retentativa" and method == "POST":
            return self.retry(mine, urllib.parse.unquote(parts[1]), parts[3])
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
        return self.answer(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": SCOPE})

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

    def locrec(self, mine, method, location_id):
        with LOCK:
            if method == "POST" and location_id is None:
                new_id = len(mine["locrec"]) + 1
                mine["locrec"][new_id] = {"id": new_id, "location": f"pix.local/qr/v2/rec/{uuid.uuid4().hex}",
                                          "criacao": stamp(now()), "tipo": "rec"}
                return self.answer(201, mine["locrec"][new_id])
            if method == "GET" and location_id is not None:
                found = mine["locrec"].get(int(location_id)) if location_id.isdigit() else None
                return self.answer(200, found) if found else self.answer(
                    *problem(404, "PayloadLocationRecNaoEncontrado", "location não encontrada"))
        return self.answer(*problem(405, "MetodoNaoPermitido", method))

    def rec(self, mine, method, id_rec, body, query):
        with LOCK:
            if method == "POST" and id_rec is None:
                wrong = rec_violations(mine, obj(body))
                if wrong:
                    return self.answer(*problem(400, "RecOperacaoInvalida", "; ".join(wrong)))
                return self.answer(201, full_rec(mine, make_rec(mine, body)))
            rec = mine["rec"].get(id_rec) if id_rec else None
            if method not in ("GET", "PATCH") or id_rec is None:
                return self.answer(*problem(405, "MetodoNaoPermitido", method))
            if not rec:
                return self.answer(*problem(404, "RecNaoEncontrada", "recorrência não encontrada"))
            if method == "GET":
                if query.get("txid"):
                    return self.answer(*problem(400, "RecConsultaInvalida", "o PSP local faz só a jornada 2"))
                return self.answer(200, full_rec(mine, rec, qr=True))
            if (body or {}) != {"status": "CANCELADA"}:
                return self.answer(*problem(400, "RecOperacaoInvalida", ONLY_CANCEL))
            if rec["status"] in ("CANCELADA", "REJEITADA", "EXPIRADA"):
                return self.answer(*problem(400, "RecOperacaoInvalida", f"a recorrência encontra-se {rec['status']}"))
            cancel_rec(mine, rec, "USUARIO_RECEBEDOR", "SLCR", "SLCR", "usuário recebedor")
            return self.answer(200, full_rec(mine, rec))

    def webhook_rec(self, mine, method, kind, body):
        """PUT/GET/DELETE /webhookrec and /webhookcobr: one URL per client."""
        with LOCK:
            if method == "PUT":
                if not str((body or {}).get("webhookUrl", "")).startswith(("https://", "http://")):
                    title = "WebhookRecOperacaoInvalida" if kind == "webhookrec" else "WebhookCobROperacaoInvalida"
                    return self.answer(*problem(400, title, "webhookUrl inválida"))
                mine[kind] = {"webhookUrl": body["webhookUrl"], "criacao": stamp(now())}
                return self.answer(200)
            if not mine[kind]:
                return self.answer(*problem(404, "WebhookNaoEncontrado", "webhook não encontrado"))
            if method == "DELETE":
                mine[kind] = None
                return self.answer(204)
            return self.answer(200, mine[kind])

    def cobr(self, mine, method, txid, body):
        if not TXID.match(txid):
            return self.answer(*problem(400, "CobROperacaoInvalida", "txid inválido"))
        with LOCK:
            cobr = mine["cobr"].get(txid)
            if method == "PUT":
                wrong = cobr_violations(mine, txid, obj(body))
                if wrong:
                    return self.answer(*problem(400, "CobROperacaoInvalida", "; ".join(wrong)))
                return self.answer(201, full_cobr(mine, make_cobr(mine, txid, body)))
            if not cobr:
                return self.answer(*problem(404, "CobRNaoEncontrado", "cobrança recorrente não encontrada"))
            if method == "GET":
                return self.answer(200, full_cobr(mine, cobr))
            if method != "PATCH":
                return self.answer(*problem(405, "MetodoNaoPermitido", method))
            if (body or {}) != {"status": "CANCELADA"}:
                return self.answer(*problem(400, "CobROperacaoInvalida", ONLY_CANCEL))
            if cobr["status"] in ("CONCLUIDA", "REJEITADA", "CANCELADA", "EXPIRADA"):
                return self.answer(*problem(400, "CobROperacaoInvalida", f"cobrança {cobr['status']}"))
            first = cobr["tentativas"][0]["dataLiquidacao"]
            if now().date().isoformat() >= first:
                detail = f"não é possível cancelar a partir da data da primeira tentativa de liquidação ({first})"
                return self.answer(*problem(400, "CobROperacaoInvalida", detail))
            cancelamento = {"solicitante": "USUARIO_RECEBEDOR", "codigo": "SLCR",
                            "descricao": "cancelamento solicitado pelo usuário recebedor"}
            end_cobr(cobr, "CANCELADA", {"cancelamento": cancelamento})
            return self.answer(200, full_cobr(mine, cobr))

    def retry(self, mine, txid, data):
        if not TXID.match(txid):
            return self.answer(*problem(400, "CobROperacaoInvalida", "txid inválido"))
        with LOCK:
            cobr = mine["cobr"].get(txid)
            if not cobr:
                return self.answer(*problem(404, "CobRNaoEncontrado", "cobrança recorrente não encontrada"))
            day = day_of(data)
            wrong = retry_violations(mine["rec"][cobr["idRec"]], cobr, day)
            if wrong:
                return self.answer(*problem(400, "CobROperacaoInvalida", wrong))
            cobr["tentativas"].append(attempt("RIFL", day.isoformat()))
            return self.answer(201, full_cobr(mine, cobr))

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
                return self.answer(200, {"clients": {c: {"charges": len(u["cobv"]), "pix": len(u["pix"]),
                                                         "webhooks": u["webhooks"], "recs": len(u["rec"]),
                                                         "cobrs": len(u["cobr"]), "webhookrec": u["webhookrec"],
                                                         "webhookcobr": u["webhookcobr"]}
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
            if pix.get("_cobr"):  # a Pix Automático: its recurring charge's webhook again
                with LOCK:
                    notice, hook = cobr_notice(mine, mine["cobr"][pix["_cobr"]]), mine["webhookcobr"]
                return self.answer(200, {"webhook": deliver(hook, "/cobr", {"cobsr": [notice]},
                                                            {"idRec": notice["idRec"], "txid": notice["txid"]})})
            return self.answer(200, {"webhook": call_webhook(mine, pix["_chave"], pix)})
        if path in ("/_local/rec/approve", "/_local/rec/reject", "/_local/rec/cancel") and method == "POST":
            return self.payer_rec(path.rsplit("/", 1)[1], body)
        if path in ("/_local/cobr/settle", "/_local/cobr/fail") and method == "POST":
            return self.payer_cobr(path.rsplit("/", 1)[1], body)
        return self.answer(404, {"detail": path})

    def payer_rec(self, action, body):
        """The payer (through its PSP) approves, rejects or cancels a recurrence; webhookrec is told."""
        with LOCK:
            mine = user(body.get("client", ""))
            rec = mine["rec"].get(body.get("idRec", ""))
            code = body.get("pixCopiaECola")
            if not rec and code:  # the QR code the payer scanned: the recurrence of its location
                rec = next((r for r in mine["rec"].values()
                            if mine["locrec"].get(r["_loc"], {}).get("location", "\0") in code), None)
            if not rec:
                return self.answer(404, {"detail": "recorrência não encontrada"})
            wanted = "APROVADA" if action == "cancel" else "CRIADA"
            if rec["status"] != wanted:
                return self.answer(409, {"detail": f"recorrência {rec['status']}: {action} pede {wanted}"})
            if action == "approve":
                payer = body if body.get("cpf") or body.get("cnpj") else rec["vinculo"]["devedor"]
                kind = "cpf" if payer.get("cpf") else "cnpj"
                changed(rec, "APROVADA")
                rec["ativacao"] = {"tipoJornada": "JORNADA_2"}
                rec["pagador"] = {"ispbParticipante": ISPB, kind: payer[kind]}
            elif action == "reject":
                changed(rec, "REJEITADA")
                rec["encerramento"] = {"rejeicao": {"codigo": "AP13", "descricao": "recusada pelo usuário pagador"}}
            else:
                cancel_rec(mine, rec, "USUARIO_PAGADOR", "ACCL", "SLBD", "usuário pagador")
            notice, hook = rec_notice(rec), mine["webhookrec"]
        result = deliver(hook, "/rec", {"recs": [notice]}, {"idRec": notice["idRec"]})
        return self.answer(200, {"status": notice["status"], "webhook": result})

    def payer_cobr(self, action, body):
        """The payer's PSP settles or fails the scheduled attempt of a recurring charge; webhookcobr is told."""
        codigo = body.get("codigo", "AM02")
        if action == "fail" and codigo not in ATTEMPT_CODES:
            return self.answer(400, {"detail": f"codigo {codigo}: não é um código de rejeição de tentativa"})
        with LOCK:
            mine = user(body.get("client", ""))
            cobr = mine["cobr"].get(body.get("txid", ""))
            if not cobr:
                return self.answer(404, {"detail": "cobrança recorrente não encontrada"})
            entry = next((t for t in cobr["tentativas"] if t["status"] == "AGENDADA"), None)
            if not entry:
                return self.answer(409, {"detail": f"cobrança {cobr['status']}: nenhuma tentativa AGENDADA"})
            out = {}
            if action == "settle":
                changed(entry, "PAGA")
                at = now()
                # The key lookup (_chave) finds no webhook: a Pix Automático is notified on /cobr only.
                pix = {"endToEndId": entry["endToEndId"], "txid": cobr["txid"], "valor": cobr["valor"]["original"],
                       "horario": stamp(at), "infoPagador": "Pix Automático pago no ambiente local", "_at": at,
                       "_chave": None, "_cobr": cobr["txid"]}
                mine["pix"][pix["endToEndId"]] = pix
                cobr["_pix"].append(pix["endToEndId"])
                changed(cobr, "CONCLUIDA")
                out = {"endToEndId": pix["endToEndId"], "valor": pix["valor"], "horario": pix["horario"]}
            else:
                descricao = f"tentativa rejeitada pelo PSP pagador ({codigo})"
                changed(entry, "REJEITADA")
                entry["rejeicao"] = {"codigo": codigo, "descricao": descricao}
                policy = mine["rec"][cobr["idRec"]]["politicaRetentativa"]
                retries = sum(1 for t in cobr["tentativas"] if t["tipo"] == "RIFL")
                if policy != "PERMITE_3R_7D" or retries >= RETRIES or codigo in REJECT_COBR:
                    end_cobr(cobr, "REJEITADA", {"rejeicao": {"codigo": codigo, "descricao": descricao}})
            notice, hook = cobr_notice(mine, cobr), mine["webhookcobr"]
        record = {"idRec": notice["idRec"], "txid": notice["txid"]}
        result = deliver(hook, "/cobr", {"cobsr": [notice]}, record) if body.get("notify", True) else "not called"
        return self.answer(200, {**out, "status": notice["status"], "webhook": result})

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
