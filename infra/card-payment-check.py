#!/usr/bin/env python3
"""A payer pays a billing by card on its payer page, in headless Chromium at phone size (run by
infra/check-payer-page, which starts the dev server with the demo account's card gateway on at the
local localstripe).

Through the API (the demo account's token) it makes a billing and waits for its billet; checks
`gw_payment_link`; opens the billet's page at 390x844, follows "Pagar com cartão", checks the card
page's Content-Security-Policy (its own script and style, and the gateway's origins only), types a
test card into the gateway's card field (the Stripe.js stand-in the page loads from its origin),
pays, and waits for the page to say so; checks the page with axe-core and takes a screenshot. Then
the billing must be `paid` with the `gw_*` fields equal to what localstripe recorded, and turn
`available` when the availability step runs on its escrow end's day (`ops gateway available`).

Usage: card-payment-check.py --base-url URL --demo FILE --screenshots DIR --axe axe.min.js
Env: OPS_BIN (the ops binary), LOCAL_STRIPE_URL and LOCAL_STRIPE_JS_URL, and the local AWS
settings (AWS_ENDPOINT_URL, TABLE_NAME).
"""

import argparse
import datetime
import importlib
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
# infra/payer-page-check.py as a module: its API client, steps and axe check.
sys.path.insert(0, str(ROOT / "infra"))
checks = importlib.import_module("payer-page-check")
step = checks.step


# Stripe's test cards declined at the charge (docs.stripe.com/testing) and the page's words for each.
DECLINED = [
    ("4000 0000 0000 0002", "recusado pelo banco emissor"),
    ("4000 0000 0000 9995", "saldo ou limite insuficiente"),
    ("4000 0000 0000 0069", "está vencido"),
    ("4000 0000 0000 0127", "código de segurança (CVC)"),
    ("4000 0000 0000 0341", "recusado pelo banco emissor"),
]


def type_card(page, number):
    """Types the card `number`, a future expiry and a CVC into the gateway's card field."""
    page.fill("[data-card=number]", number)
    page.fill("[data-card=expiry]", "12/30")
    page.fill("[data-card=cvc]", "123")


def at_localstripe(intent):
    url = f"{os.environ['LOCAL_STRIPE_URL']}/v1/payment_intents/{intent}?expand[]=latest_charge.balance_transaction"
    request = urllib.request.Request(url, headers={"Authorization": "Bearer sk_test_card_check"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--demo", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--axe", required=True)
    args = parser.parse_args()
    demo = json.loads(Path(args.demo).read_text())
    api = checks.Api(args.base_url, demo["token"])

    step("a billing of the demo account (its gateway on) and its billet")
    contact = {"contact": {"full_name": "Carla Cartão", "cpf": "390.533.447-05", "address_postal_code": "01310-100",
                           "address_street": "Avenida Paulista", "address_number": "1000",
                           "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}}
    made = api.expect(201, "POST", "/v1/contacts", contact)
    due = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
    billing = {"billing": {"bank_rule_id": 1, "bill_category_id": 1, "contact_id": made["id"], "due_date": due,
                           "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "89.90"}]}}
    billing_id = api.expect(201, "POST", "/v1/billings", billing)["id"]
    billet = api.opened_billet(billing_id)
    shown = api.expect(200, "GET", f"/v1/billings/{billing_id}")
    assert shown["gw_payment_link"] == billet["url"] + "/cartao", shown["gw_payment_link"]

    step("the billet's page at 390x844, its card link, the card page and its policy")
    with sync_playwright() as playwright:
        errors = []
        browser, page = checks.phone_page(playwright, errors)
        page.goto(billet["url"])
        with page.expect_navigation():
            page.get_by_role("link", name="Pagar com cartão").click()
        assert page.url == shown["gw_payment_link"], page.url
        checks.check_card_page(page)

        step("Stripe's declined test cards, one after another on the same page: each said in Portuguese")
        for number, words in DECLINED:
            type_card(page, number)
            page.get_by_role("button", name="Pagar").click()
            page.wait_for_selector(f"#card-status:has-text('{words}')", timeout=20000)
            page.wait_for_selector("#pay:not([disabled])", timeout=5000)
            print(f"   {number}: {page.inner_text('#card-status')!r}")
        # The gateway answers a refusal 402, which Chromium logs as a failed load (as with Stripe's).
        errors[:] = [e for e in errors if "status of 402" not in e]
        still = api.expect(200, "GET", f"/v1/billings/{billing_id}")
        assert still["status"] == "opened" and not still.get("gw_received_with"), (still["status"], still)
        print("   the billing: opened, nothing recorded")

        step("a good card on the same page; pay")
        type_card(page, "4242 4242 4242 4242")
        shot = Path(args.screenshots) / "card-checkout-phone.png"
        page.screenshot(path=str(shot), full_page=True)
        page.get_by_role("button", name="Pagar").click()
        page.wait_for_selector("#card-status:has-text('aprovado')", timeout=20000)
        violations = checks.axe(page, args.axe)
        print(f"   paid in the page; axe: no serious or critical violation ({violations} minor or moderate)")
        paid_shot = Path(args.screenshots) / "card-paid-phone.png"
        page.screenshot(path=str(paid_shot), full_page=True)
        print(f"   screenshots: {shot} (the card typed), {paid_shot} (paid)")
        assert not errors, errors
        browser.close()

    step("the billing: paid, with the gateway's figures")
    paid = api.expect(200, "GET", f"/v1/billings/{billing_id}")
    assert paid["status"] == "paid", paid["status"]
    assert paid["gw_received_with"] == "credit_card", paid["gw_received_with"]
    ran = subprocess.run([os.environ["OPS_BIN"], "gateway", "sync", "--account", str(demo["account_id"]),
                          "--billing", str(billing_id)], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    intent = json.loads(ran.stdout)["gw_card"]["intent_id"]
    gateway = at_localstripe(intent)
    charge = gateway["latest_charge"]
    balance = charge["balance_transaction"]
    assert paid["display_amount_payable"] == f"{charge['amount'] / 100:.2f}", (paid["display_amount_payable"], charge)
    assert paid["gw_fee_amount"] == f"{balance['fee'] / 100:.2f}", paid["gw_fee_amount"]
    assert (paid["gw_payment_method_type"], paid["gw_payment_method_code"]) == (1, 101), paid
    escrow = datetime.datetime.fromisoformat(paid["gw_escrow_end_date"])
    assert int(escrow.timestamp()) == balance["available_on"], (paid["gw_escrow_end_date"], balance)
    print(f"   paid R$ {paid['display_amount_payable']}, fee {paid['gw_fee_amount']}, funds on {escrow.date()}")

    step("the availability step on the escrow end's day")
    ran = subprocess.run([os.environ["OPS_BIN"], "gateway", "available", "--date", escrow.date().isoformat()],
                         capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    available = api.expect(200, "GET", f"/v1/billings/{billing_id}")
    assert available["status"] == "available", available["status"]
    print("card payment in chromium: ok")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"card payment: FAILED: {failure}")
        sys.exit(1)
