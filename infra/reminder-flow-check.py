#!/usr/bin/env python3
"""A payer's reminder from the API to the phone (run by infra/check-payer-page, which starts the dev
server on a table of its own).

Through the API (the demo account's token) it makes a contact with an e-mail and a billing due three
days after a fixed Monday, waits for its billet; runs that Monday's reminders with the ops CLI
(`reminders run --date`); reads the e-mail back from moto's SES (`/moto-api/data.json`) and checks it
in Chromium at phone width with infra/reminder-email-check.py (the pay link, the amount, the due date,
the digitable line, the unsubscribe link; a screenshot); then opens the unsubscribe link in Chromium,
presses its button, and checks that the contact is opted out.

Usage: reminder-flow-check.py --base-url URL --demo FILE --screenshots DIR --axe axe.min.js
Env: OPS_BIN (the ops binary) with TABLE_NAME and the local AWS settings (AWS_ENDPOINT_URL).
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
DAY, DUE = "2030-03-01", "2030-03-04"  # a Friday, and the Monday three days on


def step(text):
    print(f"-- {text}", flush=True)


def load_payer_page_check():
    """infra/payer-page-check.py as a module: its API client."""
    spec = importlib.util.spec_from_file_location("payer_page_check", ROOT / "infra" / "payer-page-check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def emails_to(address):
    """The (subject, body) of each e-mail moto's SES sent to `address`."""
    endpoint = os.environ["AWS_ENDPOINT_URL"]
    with urllib.request.urlopen(f"{endpoint}/moto-api/data.json", timeout=30) as answer:
        data = json.load(answer)
    found, stack = [], [data.get("ses"), data.get("sesv2")]
    while stack:
        value = stack.pop()
        if isinstance(value, dict) and "destinations" in value and "body" in value:
            if address in json.dumps(value["destinations"]):
                found.append((value.get("subject", ""), value["body"]))
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--demo", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--axe", required=True)
    args = parser.parse_args()
    demo = json.loads(Path(args.demo).read_text())
    api = load_payer_page_check().Api(args.base_url, demo["token"])

    step("a payer with an e-mail and a billing due on " + DUE)
    address = f"lembrete-{int(time.time() * 1000)}@example.com"
    contact = {"contact": {"full_name": "Joana Pagadora", "cpf": "111.444.777-35", "email": address,
                           "address_postal_code": "01310-100", "address_street": "Avenida Paulista",
                           "address_number": "1000", "address_district": "Bela Vista",
                           "address_city": "São Paulo", "address_state": "SP"}}
    status, made = api.call("POST", "/v1/contacts", contact)
    assert status == 201, f"contact: {status} {made}"
    billing = {"billing": {"bank_rule_id": 1, "bill_category_id": 1, "contact_id": made["id"], "due_date": DUE,
                           "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}}
    status, made = api.call("POST", "/v1/billings", billing)
    assert status == 201, f"billing: {status} {made}"
    billing_id = made["id"]
    billet = None
    for _ in range(150):
        _, shown = api.call("GET", f"/v1/billings/{billing_id}")
        billets = shown.get("bank_billets") or []
        if billets and billets[0].get("digitable_line"):
            billet = billets[0]
            break
        time.sleep(0.2)
    assert billet, "the billet was not registered in 30 s"

    step(f"the reminders of {DAY} (ops reminders run)")
    ran = subprocess.run([os.environ["OPS_BIN"], "reminders", "run", "--date", DAY], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    assert report["statuses"].get("sent", 0) >= 1, report
    _, shown = api.call("GET", f"/v1/billings/{billing_id}")
    log = shown["billing_reminder_deliveries"]
    assert [(d["channel"], d["status"]) for d in log] == [("email", "sent")], log

    sent = emails_to(address)
    assert len(sent) == 1, f"{len(sent)} e-mails to {address}"
    subject, html = sent[0]
    assert "vence em 3 dias" in subject, subject
    link = billet["url"]
    with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False) as file:
        file.write(html)
    shot = Path(args.screenshots) / "reminder-email-phone.png"
    checked = subprocess.run([sys.executable, str(ROOT / "infra" / "reminder-email-check.py"), "--html", file.name,
                              "--expect-link", link, "--expect-text", "R$ 150,00", "--expect-text", "04/03/2030",
                              "--expect-text", billet["digitable_line"], "--unsubscribe", f"{link}/lembretes",
                              "--screenshot", str(shot), "--axe", args.axe])
    os.unlink(file.name)
    assert checked.returncode == 0, "the e-mail's check failed"

    step("the unsubscribe page: one button, then opted out")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 390, "height": 844})
        answer = page.goto(f"{link}/lembretes")
        assert answer.status == 200, answer.status
        page.get_by_role("button", name="Não quero mais receber lembretes").click()
        page.wait_for_load_state()
        assert "Lembretes cancelados" in page.inner_text("body"), page.content()
        browser.close()
    _, shown = api.call("GET", f"/v1/contacts/{shown['contact_id']}")
    assert shown["reminders_opt_out"] is True, shown
    print("reminder from the API to the phone: ok")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"reminder flow: FAILED: {failure}")
        sys.exit(1)
