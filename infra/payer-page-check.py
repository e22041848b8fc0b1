#!/usr/bin/env python3
"""The payer's page in a real browser (run by infra/check-payer-page, which starts the dev server).

Through the API (the demo account's token) it makes a contact and three billings and waits for their
billets; then, in Debian's Chromium driven headless by Playwright with no credentials at all:
  - the payable billet at phone width (390x844, scale 3) and desktop width (1280x900): screenshots;
    zbarimg decodes the Pix QR code from each screenshot and it must equal the billet's pix_qr_code;
    the page's text holds the digitable line; each copy button puts its code on the clipboard;
    axe-core finds no serious or critical violation;
  - a cancelled billet's page and a paid one's (paid through the ops CLI, as the bank's payment is
    recorded locally): their state in words, no digitable line, no Pix code, no QR image, axe clean;
  - an unknown link: 404.

Usage: payer-page-check.py --base-url URL --demo FILE --screenshots DIR --axe axe.min.js
Env: OPS_BIN (the ops binary) with TABLE_NAME and the local AWS settings, for the payment.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}, "device_scale_factor": 1}


def step(text):
    print(f"-- {text}", flush=True)


class Api:
    def __init__(self, base, token):
        self.base, self.token = base, token

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def expect(self, status, method, path, body=None):
        got, answer = self.call(method, path, body)
        assert got == status, f"{method} {path}: {got} {answer}"
        return answer

    def opened_billet(self, billing_id):
        """The billing's billet once the simulated bank registered it (the dev server's worker)."""
        for _ in range(150):
            billing = self.expect(200, "GET", f"/v1/billings/{billing_id}")
            billets = billing["bank_billets"]
            if billets and billets[0]["status"] == "opened":
                return billets[0]
            time.sleep(0.2)
        raise AssertionError(f"billing {billing_id}: no opened billet: {billing}")


def decode_qr(image):
    """Every QR code zbarimg finds in the image, as text."""
    run = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(image)],
                         capture_output=True, text=True)
    return [line for line in run.stdout.splitlines() if line]


def axe(page, axe_script):
    # Evaluated through the DevTools protocol: the page's own policy allows no script but its own.
    page.evaluate(Path(axe_script).read_text() + "\n;0")
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    bad = [v for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, json.dumps([{k: v[k] for k in ("id", "impact", "help")} for v in bad], ensure_ascii=False)
    return len(result["violations"])


def phone_page(playwright, errors):
    """Chromium at phone size (390x844, pt-BR), its errors and console errors put in `errors`:
    the browser and its page."""
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True, locale="pt-BR")
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    return browser, page


def origin(url):
    return "/".join(url.split("/")[:3])


def check_card_page(page):
    """A card page as the payer sees it: a policy that admits the gateway's origins only (localstripe
    and its Stripe.js stand-in), the gateway's card field mounted, no horizontal scroll."""
    stand_in = origin(os.environ["LOCAL_STRIPE_JS_URL"])
    policy = page.evaluate("async () => (await fetch(location.href)).headers.get('content-security-policy')")
    for needed in ("default-src 'none'", "frame-ancestors 'none'", stand_in):
        assert needed in policy, f"{needed!r} not in {policy}"
    sources = {word for word in policy.replace(";", " ").split() if word.startswith("http")}
    allowed = {stand_in, origin(os.environ["LOCAL_STRIPE_URL"])}
    assert sources <= allowed, f"origins beyond the gateway's: {sources - allowed}"
    page.wait_for_selector("[data-card=number]", timeout=15000)
    scroll = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert scroll <= 0, f"{scroll}px of horizontal scroll"


def open_page(browser, url, shape, errors):
    context = browser.new_context(**shape, locale="pt-BR", permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    outside = []
    page.on("request", lambda r: r.url.startswith(("http://", "https://")) and not r.url.startswith(url.split("/pay/")[0]) and outside.append(r.url))
    answer = page.goto(url)
    return context, page, answer, outside


def demo_api():
    """A check's arguments (--base-url, --demo, --screenshots, --axe), the demo account, and the API
    with its token."""
    parser = argparse.ArgumentParser()
    for name in ("--base-url", "--demo", "--screenshots", "--axe"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    demo = json.loads(Path(args.demo).read_text())
    return args, demo, Api(args.base_url, demo["token"])


def contact_body(full_name, cpf, email=None):
    """A contact's create body, living on Avenida Paulista as the checks' payers do."""
    body = {"full_name": full_name, "cpf": cpf, "address_postal_code": "01310-100",
            "address_street": "Avenida Paulista", "address_number": "1000", "address_district": "Bela Vista",
            "address_city": "São Paulo", "address_state": "SP"}
    return {"contact": body | ({"email": email} if email else {})}


def cycles(api, schedule):
    """The billings a schedule's cycles made, oldest first."""
    listed = api.expect(200, "GET", f"/v1/billings?billing_id={schedule}&per_page=100")
    return sorted(listed["billings"], key=lambda b: b["id"])


def run_schedules(base_url, day):
    """`ops schedules run --date <day>` against the dev server at `base_url` (LOCAL_API_URL: the
    command tells it to hand on what it wrote, its outbox, at once)."""
    ran = subprocess.run([os.environ["OPS_BIN"], "schedules", "run", "--date", day],
                         capture_output=True, text=True, env={**os.environ, "LOCAL_API_URL": base_url})
    assert ran.returncode == 0, ran.stderr


def run(main, name):
    """Runs a check's `main`: a failed assertion prints `<name>: FAILED: …` and exits 1."""
    try:
        main()
    except AssertionError as failure:
        print(f"{name}: FAILED: {failure}")
        sys.exit(1)


def main():
    args, demo, api = demo_api()
    shots = Path(args.screenshots)

    step("POST /v1/contacts, three billings; wait for their billets")
    maria = contact_body("Maria da Silva", "529.982.247-25", "maria@example.com")
    contact = api.expect(201, "POST", "/v1/contacts", maria)

    def billing(description, amount):
        return api.expect(201, "POST", "/v1/billings", {"billing": {
            "bank_rule_id": 1, "contact_id": contact["id"], "bill_category_id": 1, "due_date": "2030-03-04",
            "penalty": "2", "penalty_type": "percentage", "interest": "1", "interest_type": "percentage",
            "billing_items": [{"description": description, "quantity": 1, "amount": amount}]}})["id"]

    payable_id, cancelled_id, paid_id = billing("Mensalidade de março", "150.00"), billing("Taxa", "40.00"), billing("Aula", "80.00")
    payable, cancelled, paid = (api.opened_billet(i) for i in (payable_id, cancelled_id, paid_id))
    for billet in (payable, cancelled, paid):
        assert billet["url"].startswith(args.base_url + "/pay/"), billet["url"]

    step("cancel one billing, pay another (infra/ops billing pay)")
    api.expect(200, "POST", f"/v1/billings/{cancelled_id}/cancel", {"billing": {"cancellation_reason": "Lançada em duplicidade"}})
    run = subprocess.run([os.environ["OPS_BIN"], "billing", "pay", "--account", str(demo["account_id"]),
                          "--billing", str(paid_id), "--date", "2030-03-01"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        for name, shape in (("phone", PHONE), ("desktop", DESKTOP)):
            step(f"the payable billet's page at {name} width")
            errors = []
            context, page, answer, outside = open_page(browser, payable["url"], shape, errors)
            assert answer.status == 200, answer.status
            text = page.inner_text("body")
            assert payable["digitable_line"] in text, text
            assert "R$ 150,00" in text.replace("\u00a0", " "), text
            image = shots / f"payer-page-{name}.png"
            page.screenshot(path=str(image), full_page=True)
            codes = decode_qr(image)
            assert payable["pix_qr_code"] in codes, f"QR codes read from {image}: {codes}"
            for button, expected in (("Copiar linha digitável", payable["digitable_line"]),
                                     ("Copiar código Pix", payable["pix_qr_code"])):
                page.evaluate("navigator.clipboard.writeText('')")
                page.get_by_role("button", name=button).click()
                page.get_by_role("status").filter(has_text="copiad").wait_for()
                copied = page.evaluate("navigator.clipboard.readText()")
                assert copied == expected, f"{button}: {copied!r}"
            with page.expect_download() as download:
                page.get_by_role("link", name="Baixar boleto em PDF").click()
            pdf = download.value.path()
            assert Path(pdf).read_bytes()[:5] == b"%PDF-", pdf
            others = axe(page, args.axe)
            assert not errors, errors
            assert not outside, f"requests to other origins: {outside}"
            print(f"   QR decoded, line found, both codes copied, PDF downloaded; axe: {others} minor or moderate")
            context.close()

        if os.environ.get("LOCAL_PIX_CERTS"):
            step("an Itaú billet with a Pix charge (bank rule 2), before its remittance: pay by Pix")
            pix_id = api.expect(201, "POST", "/v1/billings", {"billing": {
                "bank_rule_id": 2, "contact_id": contact["id"], "bill_category_id": 1, "due_date": "2030-03-04",
                "billing_items": [{"description": "Mensalidade (Itaú)", "quantity": 1, "amount": "95.00"}]}})["id"]
            itau = None
            for _ in range(150):
                billets = api.expect(200, "GET", f"/v1/billings/{pix_id}")["bank_billets"]
                if billets and billets[0]["pix_qr_code"]:
                    itau = billets[0]
                    break
                time.sleep(0.2)
            assert itau and itau["status"] == "pending_remittance", itau
            errors = []
            context, page, answer, outside = open_page(browser, itau["url"], PHONE, errors)
            assert answer.status == 200, answer.status
            text = page.inner_text("body")
            assert "pague agora pelo Pix" in text and itau["digitable_line"] not in text, text
            image = shots / "payer-page-itau-pix.png"
            page.screenshot(path=str(image), full_page=True)
            assert decode_qr(image) == [itau["pix_qr_code"]], decode_qr(image)
            axe(page, args.axe)
            assert not errors and not outside, (errors, outside)
            context.close()
            run = subprocess.run([os.environ["OPS_BIN"], "pix", "pay", "--account", str(demo["account_id"]),
                                  "--billing", str(pix_id), "--date", "2030-03-01"], capture_output=True, text=True)
            assert run.returncode == 0, run.stderr
            context, page, answer, _ = open_page(browser, itau["url"], PHONE, errors)
            assert "foi pago em 01/03/2030" in page.inner_text("body"), page.inner_text("body")
            context.close()
            print("   QR decoded to the PSP's pixCopiaECola; paid by Pix, the page says so")

        for label, billet, words in (("cancelled", cancelled, "foi cancelado"), ("paid", paid, "foi pago em 01/03/2030")):
            step(f"the {label} billet's page: its state, no payable code")
            errors = []
            context, page, answer, _ = open_page(browser, billet["url"], PHONE, errors)
            assert answer.status == 200, answer.status
            text = page.inner_text("body")
            assert words in text, text
            assert billet["digitable_line"] not in text and billet["pix_qr_code"] not in page.content(), text
            assert page.locator("svg").count() == 0 and page.get_by_role("button").count() == 0
            page.screenshot(path=str(shots / f"payer-page-{label}.png"), full_page=True)
            assert not decode_qr(shots / f"payer-page-{label}.png")
            axe(page, args.axe)
            assert not errors, errors
            context.close()

        step("an unknown link: 404")
        context = browser.new_context()
        page = context.new_page()
        answer = page.goto(args.base_url + "/pay/" + "A" * 32)
        assert answer.status == 404 and "Boleto não encontrado" in page.inner_text("body"), answer.status
        axe(page, args.axe)
        context.close()
        browser.close()
    print(f"screenshots in {shots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
