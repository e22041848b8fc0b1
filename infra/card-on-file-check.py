#!/usr/bin/env python3
"""A payer saves a card for a schedule on its payer page, in headless Chromium at phone size, and
the next cycle is paid with it (run by infra/check-payer-page, which starts the dev server with the
demo account's card gateway on at the local localstripe).

Through the API (the demo account's token) it makes a monthly schedule whose first cycle is billed
at once (`lead_days` 60) and waits for that billing's billet; opens the billet's page at 390x844,
follows "Salvar um cartão para as próximas cobranças", checks the page's Content-Security-Policy
(its own script and style, and the gateway's origins only), types a test card into the gateway's
card field (the Stripe.js stand-in), saves it and waits for the page to say so; checks the page
with axe-core and takes a screenshot. Then `ops schedules run` issues the next cycle, the dev
server's workers register its billet and charge it off-session, and that billing must turn `paid`
by `credit_card`, while the cycle the card was saved on stays `opened`.

Usage: card-on-file-check.py --base-url URL --demo FILE --screenshots DIR --axe axe.min.js
Env: OPS_BIN (the ops binary), LOCAL_STRIPE_URL and LOCAL_STRIPE_JS_URL, and the local AWS
settings (AWS_ENDPOINT_URL, TABLE_NAME).
"""

import datetime
import importlib
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "infra"))
checks = importlib.import_module("payer-page-check")
step = checks.step


cycles = checks.cycles


def main():
    args, _, api = checks.demo_api()

    step("a schedule of the demo account (its gateway on), its first cycle billed at once")
    contact = checks.contact_body("Sara Assinante", "284.719.365-00", "sara@example.com")
    made = api.expect(201, "POST", "/v1/contacts", contact)
    due_day = min((datetime.date.today() + datetime.timedelta(days=5)).day, 28)
    schedule = {"schedule": {"bank_rule_id": 1, "bill_category_id": 1, "contact_id": made["id"],
                             "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "59.90"}],
                             "period": "monthly", "due_day": due_day, "lead_days": 60, "cycles": 3}}
    schedule_id = api.expect(201, "POST", "/v1/schedules", schedule)["id"]
    first = cycles(api, schedule_id)
    assert len(first) == 1, first
    billet = api.opened_billet(first[0]["id"])

    step("the billet's page at 390x844, its saving link, the saving page and its policy")
    with sync_playwright() as playwright:
        errors = []
        browser, page = checks.phone_page(playwright, errors)
        page.goto(billet["url"])
        with page.expect_navigation():
            page.get_by_role("link", name="Salvar um cartão para as próximas cobranças").click()
        assert page.url == billet["url"] + "/cartao/salvar", page.url
        checks.check_card_page(page)

        step("a good card saved")
        page.fill("[data-card=number]", "4242 4242 4242 4242")
        page.fill("[data-card=expiry]", "12/30")
        page.fill("[data-card=cvc]", "123")
        shot = Path(args.screenshots) / "card-on-file-phone.png"
        page.screenshot(path=str(shot), full_page=True)
        page.get_by_role("button", name="Salvar cartão").click()
        page.wait_for_selector("#card-status:has-text('Cartão salvo')", timeout=20000)
        violations = checks.axe(page, args.axe)
        print(f"   saved in the page; axe: no serious or critical violation ({violations} minor or moderate)")
        print(f"   screenshot: {shot}")
        assert not errors, errors
        browser.close()

    step("the next cycle issued, registered and charged to the card off-session")
    checks.run_schedules(args.base_url, datetime.date.today().isoformat())
    deadline = time.time() + 60
    while True:
        billed = cycles(api, schedule_id)
        second = billed[1] if len(billed) > 1 else None
        shown = second and api.expect(200, "GET", f"/v1/billings/{second['id']}")
        if shown and shown["status"] == "paid":
            break
        assert time.time() < deadline, f"the second cycle was not paid: {shown or billed}"
        time.sleep(0.5)
    assert shown["gw_received_with"] == "credit_card", shown["gw_received_with"]
    kept = api.expect(200, "GET", f"/v1/billings/{first[0]['id']}")
    assert kept["status"] == "opened", kept["status"]
    print(f"   cycle 2 (billing {second['id']}) paid R$ {shown['gw_gross_amount']} by the card on file; cycle 1 open")
    print("card on file in chromium: ok")


if __name__ == "__main__":
    checks.run(main, "card on file")
