"""The guides' walk-throughs through a client generated from docs/openapi.yaml.

Generates a Python client with openapi-python-client (the version infra/check-client pins), imports
it as an integrator would, unchanged, and runs the steps of docs/billings.md, docs/point-of-sale.md
and docs/webhooks.md through it against a running dev server with a fresh demo account: tags, a
group, contacts, billings and their billets, an update, a bank payment (through the ops CLI, as the
guide does), a pay-off, list filters, a bulk billing, and
the point of sale, webhooks and events over the API (a local receiver). Then the PATCH cases the generated client once got wrong (a PATCH must send only
what the caller set). Every answer is checked: its status, and that the client parsed it into the
documented model (an undocumented status raises).

Usage (infra/check-client runs it): python client-walkthrough.py --document docs/openapi.yaml
    --output DIR --base-url http://127.0.0.1:PORT --demo .local/client-demo-PORT.json
Env: OPS_BIN (the ops binary) with TABLE_NAME and the local AWS settings, for the ops steps.
"""

import argparse
import datetime
import importlib
import json
import os
import pkgutil
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

PACKAGE = "billing_client"
# Generator settings: the package name, no formatter run after generating, and the binary media
# types of the printable billet read as files (the generator parses only octet-stream as bytes).
CONFIG = """\
project_name_override: billing-client
package_name_override: billing_client
post_hooks: []
content_type_overrides:
  application/pdf: application/octet-stream
  image/png: application/octet-stream
  image/svg+xml: application/octet-stream
"""

STEPS = 0


def step(text):
    global STEPS
    STEPS += 1
    print(f"  {STEPS:2}. {text}", flush=True)


def generate(document, output):
    config = Path(output) / "config.yaml"
    config.write_text(CONFIG)
    target = Path(output) / "client"
    generator = Path(sys.executable).with_name("openapi-python-client")
    run = subprocess.run(
        [str(generator), "generate", "--path", document, "--output-path", str(target), "--overwrite",
         "--config", str(config)],
        capture_output=True, text=True)
    print(run.stdout + run.stderr, end="")
    if run.returncode != 0:
        sys.exit("the generator failed")
    if "Warning" in run.stdout + run.stderr:
        sys.exit("the generator warned: part of the document would be missing from the client")
    sys.path.insert(0, str(target))


def expect(response, status, model=None):
    """The response has this status and was parsed into this model."""
    if int(response.status_code) != status:
        raise AssertionError(f"expected {status}, got {int(response.status_code)}: {response.content[:500]!r}")
    if model is not None and not isinstance(response.parsed, model):
        raise AssertionError(f"expected a {model.__name__}, got {type(response.parsed).__name__}")
    return response.parsed


def wait_for(what, probe, seconds=30):
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.3)


def ops(*args):
    """The ops CLI, as the guides run it (`infra/ops ...`) against the same table."""
    run = subprocess.run([os.environ["OPS_BIN"], *args], capture_output=True, text=True)
    if run.returncode != 0:
        raise AssertionError(f"ops {' '.join(args)} failed: {run.stderr}")
    return json.loads(run.stdout) if run.stdout.strip() else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--document", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--demo", required=True, help="the dev server's demo file (account id, token)")
    args = parser.parse_args()
    demo = json.loads(Path(args.demo).read_text())
    account, token = str(demo["account_id"]), demo["token"]

    generate(args.document, args.output)
    client_module = importlib.import_module(PACKAGE)
    m = importlib.import_module(PACKAGE + ".models")
    # Every module of the client imports (the generator once wrote modules that did not).
    for module in pkgutil.walk_packages(client_module.__path__, PACKAGE + "."):
        importlib.import_module(module.name)
    imp = lambda group, name: importlib.import_module(f"{PACKAGE}.api.{group}.{name}")  # noqa: E731
    # An undocumented status raises errors.UnexpectedStatus.
    client = client_module.AuthenticatedClient(base_url=args.base_url, token=token, raise_on_unexpected_status=True)

    print("the guides' walk-through through the generated client:")
    step("POST /v1/tags {tag: {name: VIP, color: success}}")
    vip = expect(imp("tags", "create_tag").sync_detailed(
        client=client, body=m.TagCreateBody(tag=m.TagCreateBodyTag(name="VIP", color=m.TagColor.SUCCESS))), 201, m.Tag)
    assert (vip.id, vip.name, vip.color, vip.allows_on_account) == (1, "VIP", m.TagColor.SUCCESS, False), vip

    step("POST /v1/groups {group: {contact_type: customers, description: Mensalistas}}")
    group = expect(imp("groups", "create_group").sync_detailed(client=client, body=m.GroupCreateBody(
        group=m.GroupCreateBodyGroup(contact_type=m.GroupContactType.CUSTOMERS, description="Mensalistas"))), 201, m.Group)
    assert group.description == "Mensalistas", group

    step("GET /v1/tags?s=vi&per_page=10 (and the pagination headers)")
    answer = imp("tags", "list_tags").sync_detailed(client=client, s="vi", per_page=10)
    listed = expect(answer, 200, m.TagList)
    assert [t.name for t in listed.tags] == ["VIP"], listed
    assert (answer.headers["x-total-count"], answer.headers["x-per-page"]) == ("1", "10"), answer.headers

    step("POST /v1/contacts (Maria da Silva, tag 1)")
    maria = expect(imp("contacts", "create_contact").sync_detailed(client=client, body=m.ContactBody(contact=m.ContactInput(
        full_name="Maria da Silva", cpf="529.982.247-25", email="maria@example.com",
        address_postal_code="01310-100", address_street="Avenida Paulista", address_number="1000",
        address_district="Bela Vista", address_city="São Paulo", address_state="SP", tag_ids=[1]))), 201, m.Contact)
    assert (maria.id, maria.document, maria.active, maria.legal_entity) == (1, "52998224725", True, False), maria
    assert [t.id for t in maria.tags] == [1], maria.tags

    step("GET /v1/contacts?filter=document&s=529")
    found = expect(imp("contacts", "list_contacts").sync_detailed(
        client=client, filter_=m.ListContactsFilter.DOCUMENT, s="529"), 200, m.ContactList)
    assert [c.id for c in found.contacts] == [1], found

    step("POST /v1/billings (bank rule 1, contact 1, category 1, one item of 150.00)")
    billing_body = m.CreateBillingBody(billing=m.BillingInput(
        bank_rule_id=1, contact_id=1, bill_category_id=1, due_date=datetime.date(2030, 3, 4),
        billing_items=[m.BillingItemInput(description="Mensalidade", quantity=1, amount="150.00")]))
    first = expect(imp("billings", "create_billing").sync_detailed(client=client, body=billing_body), 201, m.Billing)
    assert (first.id, first.status, first.amount, first.bank_billets) == (1, m.BillingStatus.OPENED, "150.00", []), first

    step("GET /v1/billings/1/bank_billets until the simulated bank registered the billet")
    list_billets = imp("bank_billets", "list_bank_billets")

    def billets_of(billing_id):
        return expect(list_billets.sync_detailed(billing_id=billing_id, client=client), 200).bank_billets

    billet = wait_for("billet 1 opened", lambda: next(
        (b for b in billets_of(1) if b.status == m.BankBilletStatus.OPENED), None))
    assert len(billet.barcode) == 44 and len(billet.digitable_line) == 54 and billet.pix_qr_code, billet

    step("GET the billet's url, the payer's page, with no token: its digitable line in the page")
    page = urllib.request.urlopen(billet.url, timeout=10)
    html = page.read().decode()
    assert page.status == 200 and page.headers["content-type"].startswith("text/html"), page.headers
    assert billet.digitable_line in html and "Copiar código Pix" in html, html[:400]

    step("PATCH /v1/billings/1 {billing: {due_date: 2030-04-10}}: the billet is re-issued")
    updated = expect(imp("billings", "update_billing").sync_detailed(1, client=client, body=m.UpdateBillingBody(
        billing=m.BillingUpdateInput(due_date=datetime.date(2030, 4, 10)))), 200, m.Billing)
    assert updated.due_date == datetime.date(2030, 4, 10) and updated.amount == "150.00", updated
    wait_for("the new billet opened", lambda: any(
        b.status == m.BankBilletStatus.OPENED and b.due_date == datetime.date(2030, 4, 10) for b in billets_of(1)))

    step("infra/ops billing pay --billing 1 --amount 150.00, then GET /v1/billings/1: paid")
    ops("billing", "pay", "--account", account, "--billing", "1", "--amount", "150.00")
    paid = expect(imp("billings", "show_billing").sync_detailed(1, client=client), 200, m.Billing)
    assert (paid.status, paid.paid, paid.gw_received_with) == (m.BillingStatus.PAID, True, "bank_billet"), paid

    step("POST /v1/billings of 6.66 without category: the bank rejects its billet")
    rejected = expect(imp("billings", "create_billing").sync_detailed(client=client, body=m.CreateBillingBody(
        billing=m.BillingInput(bank_rule_id=1, contact_id=1, due_date=datetime.date(2030, 3, 4),
                               billing_items=[m.BillingItemInput(description="Teste", quantity=1, amount="6.66")]))),
        201, m.Billing)
    assert rejected.id == 2, rejected
    wait_for("billet of billing 2 rejected", lambda: any(
        b.status == m.BankBilletStatus.REJECTED and b.bank_rejection for b in billets_of(2)))

    step("POST /v1/billings/2/pay_off {bank_account_id: 1, discharge_reason: payment_in_hand}")
    settled = expect(imp("billings", "pay_off_billing").sync_detailed(2, client=client, body=m.PayOffBillingBody(
        billing=m.PayOffBillingBodyBilling(
            bank_account_id=1, discharge_reason=m.PayOffBillingBodyBillingDischargeReason.PAYMENT_IN_HAND))),
        200, m.Billing)
    assert settled.status == m.BillingStatus.DISCHARGED, settled

    step("GET /v1/billings?status=opened expired&per_page=10")
    answer = imp("billings", "list_billings").sync_detailed(client=client, status="opened expired", per_page=10)
    assert expect(answer, 200).billings == [] and answer.headers["x-total-count"] == "0", answer.content

    step("POST /v1/billings bulk for tag 1 (202), then GET /v1/billings?your_code=MAIO-2030")
    bulk = expect(imp("billings", "create_billing").sync_detailed(client=client, body=m.CreateBillingBody(
        billing=m.BillingInput(billing_issue_type=m.BillingFieldsBillingIssueType.BULK, tag_id=1, bank_rule_id=1,
                               due_date=datetime.date(2030, 5, 4), your_code="MAIO-2030",
                               billing_items=[m.BillingItemInput(description="Mensalidade", quantity=1,
                                                                 amount="150.00")]))), 202)
    assert (bulk.enqueued, bulk.contacts_count) == (True, 1), bulk
    made = wait_for("the bulk billing", lambda: expect(imp("billings", "list_billings").sync_detailed(
        client=client, your_code="MAIO-2030"), 200).billings)
    assert [(b.contact_id, b.tag_id, b.billing_issue_type) for b in made] == [(1, 1, m.BillingBillingIssueType.BULK)], made

    print("Point of sale:")
    step("infra/ops: the module on, two sales, a limit, a sale over the limit refused")
    ops("account", "update", "--id", account, "--pos", "on", "--settlement-contact", "1")
    ops("sale", "create", "--account", account, "--contact", "1", "--total", "100.00", "--on-account", "40.00",
        "--item", "Camiseta:2:50.00")
    ops("contact", "limit", "--account", account, "--contact", "1", "--limit", "50.00")
    refused = subprocess.run([os.environ["OPS_BIN"], "sale", "create", "--account", account, "--contact", "1",
                              "--total", "20.00", "--on-account", "20.00"], capture_output=True, text=True)
    assert refused.returncode != 0, refused.stdout

    step("GET /v1/sales?contact_id=1")
    sales = expect(imp("point_of_sale", "list_sales").sync_detailed(client=client, contact_id=1), 200).sales
    assert [(s.total, s.on_account_amount) for s in sales] == [("100.00", "40.00")], sales

    step("POST /v1/store_credits twice with one reference: 201, then 200 with the same credit")
    credit_body = m.StoreCreditBody(store_credit=m.StoreCreditBodyStoreCredit(
        reference="troca-1", contact_id=1, amount="25.00"))
    credit = expect(imp("point_of_sale", "add_store_credit").sync_detailed(client=client, body=credit_body),
                    201, m.StoreCredit)
    again = expect(imp("point_of_sale", "add_store_credit").sync_detailed(client=client, body=credit_body),
                   200, m.StoreCredit)
    assert again.id == credit.id and credit.balance == "25.00", (credit, again)

    today = datetime.datetime.now(datetime.timezone(datetime.timedelta(hours=-3))).date()
    step("GET /v1/receivable_settlements/preview?cutoff_at=today")
    preview = expect(imp("point_of_sale", "preview_receivable_settlement").sync_detailed(
        client=client, cutoff_at=today), 200, m.ReceivableSettlementPreview)
    assert (preview.total, preview.sales_count) == ("40.00", 1), preview

    step("POST /v1/receivable_settlements acerto-1, then GET it until completed")
    requested = expect(imp("point_of_sale", "request_receivable_settlement").sync_detailed(
        client=client, body=m.ReceivableSettlementBody(receivable_settlement=m.ReceivableSettlementBodyReceivableSettlement(
            reference="acerto-1", cutoff_at=today))), 201, m.ReceivableSettlement)
    assert requested.reference == "acerto-1", requested
    done = wait_for("settlement completed", lambda: (lambda s: s if s.state.value == "completed" else None)(
        expect(imp("point_of_sale", "show_receivable_settlement").sync_detailed("acerto-1", client=client), 200)))
    assert done.billing_id and done.amount == "40.00", done

    print("What a generated client once broke (a PATCH sends only what the caller set):")
    step("PATCH /v1/tags/1 {tag: {allows_on_account: true}} keeps the colour")
    tag = expect(imp("tags", "update_tag").sync_detailed(1, client=client, body=m.TagUpdateBody(
        tag=m.TagInput(allows_on_account=True))), 200, m.Tag)
    assert (tag.color, tag.allows_on_account) == (m.TagColor.SUCCESS, True), tag

    step("PATCH /v1/contacts/1 {active: false}, then {email}: still inactive")
    update_contact = imp("contacts", "update_contact")
    expect(update_contact.sync_detailed(1, client=client, body=m.ContactBody(contact=m.ContactInput(active=False))),
           200, m.Contact)
    still = expect(update_contact.sync_detailed(1, client=client, body=m.ContactBody(
        contact=m.ContactInput(email="maria.silva@example.com"))), 200, m.Contact)
    assert (still.active, still.email) == (False, "maria.silva@example.com"), still

    step("POST /v1/contacts of a company, then PATCH its email: still a company")
    company = expect(imp("contacts", "create_contact").sync_detailed(client=client, body=m.ContactBody(contact=m.ContactInput(
        legal_entity=True, company_name="Exemplo Comércio Ltda", cnpj="12.ABC.345/01DE-35",
        address_postal_code="20040-002", address_street="Rua da Assembleia", address_number="10",
        address_district="Centro", address_city="Rio de Janeiro", address_state="RJ"))), 201, m.Contact)
    company = expect(update_contact.sync_detailed(company.id, client=client, body=m.ContactBody(
        contact=m.ContactInput(email="financeiro@example.com"))), 200, m.Contact)
    assert company.legal_entity is True, company

    step("A billing with a fixed 2.00 penalty (6.66: its billet is rejected, so the billing stays editable); "
         "PATCH its item by id with only a quantity: the penalty stays fixed")
    fixed = expect(imp("billings", "create_billing").sync_detailed(client=client, body=m.CreateBillingBody(
        billing=m.BillingInput(bank_rule_id=1, contact_id=company.id, bill_category_id=1,
                               due_date=datetime.date(2030, 6, 4),
                               penalty="2.00", penalty_type=m.BillingFieldsPenaltyType.FIXED_AMOUNT,
                               billing_items=[m.BillingItemInput(description="Mensalidade", quantity=1,
                                                                 amount="6.66")]))), 201, m.Billing)
    wait_for(f"billet of billing {fixed.id} rejected", lambda: any(
        b.status == m.BankBilletStatus.REJECTED for b in billets_of(fixed.id)))
    item = fixed.billing_items[0]
    changed = expect(imp("billings", "update_billing").sync_detailed(fixed.id, client=client, body=m.UpdateBillingBody(
        billing=m.BillingUpdateInput(billing_items=[m.BillingItemUpdate(id=item.id, quantity=2)]))), 200, m.Billing)
    assert (changed.penalty_type, changed.penalty, changed.amount) == ("fixed_amount", "2.00", "13.32"), changed
    assert changed.billing_items[0].description == "Mensalidade", changed.billing_items

    webhooks_and_events(client, m, imp)
    optional_features(client, m, imp)
    print(f"the generated client ran {STEPS} steps")


class Hook:
    """A webhook receiver on 127.0.0.1 (the dev server allows it with WEBHOOKS_ALLOW_INSECURE_LOCAL=1):
    it keeps every request (headers and raw body) and answers 204."""

    def __init__(self):
        import http.server
        import threading
        got = self.got = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/billing"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def verified(secret, headers, body):
    """Standard Webhooks: v1,base64(HMAC-SHA256(base64-decoded secret, "<id>.<timestamp>.<body>"))."""
    import base64
    import hashlib
    import hmac
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(part.split(",", 1)[1] == expected for part in headers["webhook-signature"].split(" "))


def webhooks_and_events(client, m, imp):
    """Webhooks over the API: a receiver, a signed ping, the delivery log, the events, a replay."""
    print("Webhooks and events:")
    hooks = lambda name: imp("webhook_receivers", name)  # noqa: E731
    hook = Hook()
    step("POST /v1/webhooks {webhook: {url, event_types: [billing.updated]}}: the secret in full, this once")
    made = expect(hooks("create_webhook").sync_detailed(client=client, body=m.WebhookCreateBody(
        webhook=m.WebhookCreateInput(url=hook.url, event_types=[m.EventType.BILLING_UPDATED]))), 201, m.Webhook)
    assert made.secret.startswith("whsec_") and made.enabled and made.event_types == ["billing.updated"], made
    shown = expect(hooks("get_webhook").sync_detailed(made.id, client=client), 200, m.Webhook)
    assert shown.secret == "whsec_…" + made.secret[-4:], shown.secret

    step(f"POST /v1/webhooks/{made.id}/test: a signed ping, 202 with its delivery")
    ping = expect(hooks("test_webhook").sync_detailed(made.id, client=client), 202, m.WebhookDelivery)
    assert ping.event_type == "ping" and ping.webhook_id == made.id, ping
    # Billings changing meanwhile (a billet registered) may reach the receiver too: it takes billing.updated.
    of_ping = lambda: [(h, b) for h, b in hook.got if h["webhook-id"] == ping.id]  # noqa: E731
    headers, body = wait_for("the ping", lambda: next(iter(of_ping()), None))
    assert json.loads(body)["type"] == "ping", body
    assert verified(made.secret, headers, body), "the ping's signature verifies with the secret"

    step("GET /v1/webhook_deliveries?webhook_id=… until delivered, then the delivery with its attempts")
    list_deliveries = hooks("list_webhook_deliveries")
    delivered = wait_for("the ping delivered", lambda: [d for d in expect(list_deliveries.sync_detailed(
        client=client, webhook_id=made.id, status=m.ListWebhookDeliveriesStatus.DELIVERED), 200,
        m.WebhookDeliveryList).webhook_deliveries if d.id == ping.id])
    assert delivered[0].last_response_status == 204, delivered
    detail = expect(hooks("get_webhook_delivery").sync_detailed(ping.id, client=client), 200, m.WebhookDelivery)
    assert [a.response_status for a in detail.attempts] == [204], detail.attempts

    step("GET /v1/events?type=ping&per_page=10 (a cursor page: X-Per-Page, no total)")
    answer = hooks("list_events").sync_detailed(client=client, type_=m.ListEventsType.PING, per_page=10)
    events = expect(answer, 200, m.EventList).events
    assert [e.id for e in events] == [ping.event_id] and answer.headers["x-per-page"] == "10", answer.content
    assert expect(hooks("get_event").sync_detailed(ping.event_id, client=client), 200, m.Event).type_ == "ping"

    step(f"POST /v1/webhook_deliveries/{ping.id}/replay: 202, sent again with its original id")
    replayed = expect(hooks("replay_webhook_delivery").sync_detailed(ping.id, client=client), 202, m.WebhookDelivery)
    assert replayed.id == ping.id and replayed.status.value == "pending", replayed
    wait_for("the replay, with the ping's delivery id", lambda: len(of_ping()) >= 2)

    step(f"DELETE /v1/webhooks/{made.id}: 204, then 404")
    expect(hooks("delete_webhook").sync_detailed(made.id, client=client), 204)
    expect(hooks("get_webhook").sync_detailed(made.id, client=client), 404)
    hook.server.shutdown()


def optional_features(client, m, imp):
    """Idempotency keys, rate-limit headers and the printable billet, when this build serves them:
    each is checked fully when present and reported as absent otherwise."""
    step("POST /v1/tags twice with one Idempotency-Key")
    key = str(uuid.uuid4())
    body = m.TagCreateBody(tag=m.TagCreateBodyTag(name="Idempotente"))
    create_tag = imp("tags", "create_tag")
    first = create_tag.sync_detailed(client=client, body=body, idempotency_key=key)
    expect(first, 201, m.Tag)
    second = create_tag.sync_detailed(client=client, body=body, idempotency_key=key)
    if second.headers.get("idempotent-replayed") == "true":
        assert second.status_code == 201 and json.loads(second.content) == json.loads(first.content), second.content
        other = create_tag.sync_detailed(client=client, idempotency_key=key,
                                         body=m.TagCreateBody(tag=m.TagCreateBodyTag(name="Outra")))
        assert expect(other, 409, m.CodedError).code == "idempotency_key_reused", other.content
        print("      replayed; another request with the key: 409 idempotency_key_reused")
    else:
        expect(second, 422, m.ValidationErrors)
        print("      not served by this build (the second POST was a new request)")

    step("RateLimit-Policy and RateLimit on a /v1 answer")
    answer = imp("tags", "list_tags").sync_detailed(client=client)
    expect(answer, 200, m.TagList)
    if "ratelimit-policy" in answer.headers:
        assert "q=" in answer.headers["ratelimit-policy"] and "r=" in answer.headers["ratelimit"], answer.headers
        print(f"      RateLimit-Policy: {answer.headers['ratelimit-policy']}; RateLimit: {answer.headers['ratelimit']}")
    else:
        print("      not served by this build")

    step("GET the printable billet (PDF) and its Pix QR code (PNG, SVG)")
    billet = next(b for b in expect(imp("bank_billets", "list_bank_billets").sync_detailed(
        billing_id=1, client=client), 200).bank_billets if b.status == m.BankBilletStatus.PAID)
    pdf = imp("bank_billets", "show_bank_billet_pdf").sync_detailed(1, billet.id, client=client)
    if pdf.status_code == 200:
        assert pdf.content.startswith(b"%PDF") and pdf.headers["content-type"].startswith("application/pdf")
        assert f'filename="boleto-{billet.id}.pdf"' in pdf.headers["content-disposition"], pdf.headers
        png = imp("bank_billets", "show_bank_billet_pix_png").sync_detailed(1, billet.id, client=client)
        assert png.status_code == 200 and png.content.startswith(b"\x89PNG"), png.status_code
        svg = imp("bank_billets", "show_bank_billet_pix_svg").sync_detailed(1, billet.id, client=client)
        assert svg.status_code == 200 and b"<svg" in svg.content, svg.status_code
        print(f"      PDF of {len(pdf.content)} bytes, PNG, SVG")
    else:
        assert pdf.status_code == 404 and b"Rota n" in pdf.content, pdf.content
        print("      not served by this build (404 unknown route)")


if __name__ == "__main__":
    main()
