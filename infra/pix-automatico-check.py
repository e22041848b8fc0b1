#!/usr/bin/env python3
"""A payer authorizes Pix Automático for a schedule on its payer page, in headless Chromium at phone
size, and the next cycle is debited by it (run by infra/check-payer-page with the local PSP running:
the demo account's bank rule 2 is Itaú with Pix).

Through the API (the demo account's token) it makes a monthly schedule on rule 2, billed five days
ahead (Pix Automático's window), whose first cycle is billed at once, and waits for its billet and
Pix charge; opens the billet's page at 390x844, follows "Autorizar o Pix Automático para as próximas
cobranças", decodes the recurrence's QR code from a screenshot with zbarimg, checks the page with
axe-core, and has the payer's bank approve that code (the local PSP's /_local/rec/approve with the
code scanned, which calls the service's webhookrec); the page then says it is authorized. Then
`ops schedules run` on the next cycle's issue day bills it, the dev server's workers register its
billet and send its debit (cobr), the payer's bank settles it (/_local/cobr/settle, which calls
webhookcobr), and that billing must turn `paid`, while the cycle authorized on stays `opened`.

Usage: pix-automatico-check.py --base-url URL --demo FILE --screenshots DIR --axe axe.min.js
Env: OPS_BIN (the ops binary), LOCAL_PSP_DIRECT_URL, TABLE_NAME (the local PSP's receiving user is
local-client-<table>), and the local AWS settings (AWS_ENDPOINT_URL).
"""

import datetime
import importlib
import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "infra"))
checks = importlib.import_module("payer-page-check")
step = checks.step


cycles = checks.cycles


def psp(path, body):
    """An act of the payer's bank at the local PSP, for this table's receiving user."""
    client = f"{os.environ.get('LOCAL_PSP_CLIENT_ID', 'local-client')}-{os.environ['TABLE_NAME']}"
    data = json.dumps({**body, "client": client}).encode()
    request = urllib.request.Request(f"{os.environ['LOCAL_PSP_DIRECT_URL']}/_local/{path}", data=data,
                                     method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def billet_with_pix(api, billing_id):
    """The billing's billet once it carries its Pix charge."""
    for _ in range(150):
        billets = api.expect(200, "GET", f"/v1/billings/{billing_id}")["bank_billets"]
        if billets and billets[0]["pix_qr_code"]:
            return billets[0]
        time.sleep(0.2)
    raise AssertionError(f"billing {billing_id}: no billet with a Pix charge")


def main():
    args, demo, api = checks.demo_api()

    step("a schedule on the demo's Itaú rule with Pix, billed five days ahead, its first cycle at once")
    contact = checks.contact_body("Rui Recorrente", "418.627.935-73", "rui@example.com")
    made = api.expect(201, "POST", "/v1/contacts", contact)
    today = datetime.date.today()
    due_day = min((today + datetime.timedelta(days=3)).day, 28)
    schedule = {"schedule": {"bank_rule_id": 2, "bill_category_id": 1, "contact_id": made["id"],
                             "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "79.90"}],
                             "period": "monthly", "due_day": due_day, "lead_days": 5, "cycles": 3}}
    schedule_id = api.expect(201, "POST", "/v1/schedules", schedule)["id"]
    first = cycles(api, schedule_id)
    assert len(first) == 1, first
    billet = billet_with_pix(api, first[0]["id"])

    step("the billet's page at 390x844, its Pix Automático link, the authorization page and its QR code")
    shots = Path(args.screenshots)
    with sync_playwright() as playwright:
        errors = []
        browser, page = checks.phone_page(playwright, errors)
        page.goto(billet["url"])
        with page.expect_navigation():
            page.get_by_role("link", name="Autorizar o Pix Automático para as próximas cobranças").click()
        assert page.url == billet["url"] + "/pix-automatico", page.url
        code = page.inner_text("#pix").strip()
        assert code.startswith("000201") and "br.gov.bcb.pix" in code, code
        shot = shots / "pix-automatico-phone.png"
        page.screenshot(path=str(shot), full_page=True)
        assert checks.decode_qr(shot) == [code], checks.decode_qr(shot)
        violations = checks.axe(page, args.axe)
        print(f"   QR decoded to the recurrence's code; axe: no serious or critical violation ({violations} minor"
              " or moderate)")
        print(f"   screenshot: {shot}")

        step("the payer's bank approves the code scanned; the page says it is authorized")
        approved = psp("rec/approve", {"pixCopiaECola": code})
        assert approved["webhook"] == 200, approved
        page.reload()
        assert "já está autorizado" in page.inner_text("body"), page.inner_text("body")
        assert not errors, errors
        browser.close()

    step("the next cycle billed on its issue day, its debit sent and settled by the payer's bank")
    issue_day = api.expect(200, "GET", f"/v1/billings/{schedule_id}")["recurrence"]["next_issue_date"]
    checks.run_schedules(args.base_url, issue_day)
    deadline = time.time() + 60
    while True:
        billed = cycles(api, schedule_id)
        second = billed[1] if len(billed) > 1 else None
        txid = second and f"CR{demo['account_id']:010d}B{second['id']:016d}"
        try:
            settled = txid and psp("cobr/settle", {"txid": txid})
        except urllib.error.HTTPError:
            settled = None
        if settled:
            break
        assert time.time() < deadline, f"no debit sent for the second cycle: {billed}"
        time.sleep(0.5)
    assert settled["webhook"] == 200, settled
    shown = api.expect(200, "GET", f"/v1/billings/{second['id']}")
    assert shown["status"] == "paid", shown["status"]
    kept = api.expect(200, "GET", f"/v1/billings/{first[0]['id']}")
    assert kept["status"] == "opened", kept["status"]
    print(f"   cycle 2 (billing {second['id']}) paid R$ {settled['valor']} by Pix Automático; cycle 1 open")
    print("pix automatico in chromium: ok")


if __name__ == "__main__":
    checks.run(main, "pix automatico")
