#!/usr/bin/env python3
"""A payment reminder e-mail's HTML as a payer's phone shows it: Debian's Chromium, headless, driven by
Playwright (sync API) at 390x844, with every network request blocked (an e-mail loads nothing from
outside: no image, font, style or script; any request it makes fails the check).

Checks:
  - no horizontal scroll: document.documentElement.scrollWidth <= 390;
  - the "Ver boleto e Pix" button: one link, its href the pay link, visible, at least 44 px tall,
    inside the viewport;
  - each --expect-text is in the page's innerText (whitespace collapsed on both sides);
  - a visible link to the --unsubscribe URL;
  - axe-core (npm, tests/validators) finds no serious or critical violation;
and takes a full-page screenshot at 390 px width.

Usage: reminder-email-check.py --html FILE --expect-link URL [--expect-text TEXT ...]
                               --unsubscribe URL --screenshot PNG [--axe axe.min.js]
Run it with the Playwright venv of infra/lib.sh (ensure_browser, ensure_browser_venv):
  .venv-browser/bin/python infra/reminder-email-check.py ...
Prints "reminder e-mail in chromium: ok", or "... FAILED: why" and exits 1.
"""

import argparse
import json
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 390
PHONE = {"viewport": {"width": WIDTH, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
BUTTON = "Ver boleto e Pix"

# axe-core rules about a web page's structure that an e-mail cannot meet: a mail client shows the
# message inside its own page, which has the landmarks; the message is a fragment with no <main>,
# <nav> or <header> of its own (and clients strip or rewrite them). Off only for that reason: every
# rule about contrast, names, language, headings' order and the like stays on. ("page-has-heading-one"
# does not fire, the e-mail has its h1, so it stays on too.)
AXE_RULES_OFF = ("region", "landmark-one-main")


def step(text):
    print(f"-- {text}", flush=True)


def collapsed(text):
    """Runs of whitespace (no-break spaces and line breaks too) as one space."""
    return " ".join(text.split())


def axe(page, axe_script):
    # Evaluated through the DevTools protocol, so the blocked network does not matter.
    page.evaluate(Path(axe_script).read_text() + "\n;0")
    options = {"resultTypes": ["violations"], "rules": {rule: {"enabled": False} for rule in AXE_RULES_OFF}}
    result = page.evaluate("async (options) => await axe.run(document, options)", options)
    bad = [v for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, "axe-core: " + json.dumps(
        [{"id": v["id"], "impact": v["impact"], "help": v["help"],
          "nodes": [n["html"][:120] for n in v["nodes"][:3]]} for v in bad], ensure_ascii=False)
    return [f"{v['id']} ({v['impact']})" for v in result["violations"]]


def check(args):
    html = Path(args.html).read_text(encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            context = browser.new_context(**PHONE, locale="pt-BR")
            page = context.new_page()
            requested, errors = [], []
            page.route("**/*", lambda route: (requested.append(route.request.url), route.abort()))
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            page.on("pageerror", lambda e: errors.append(str(e)))

            step(f"the e-mail ({args.html}) at {WIDTH}x844, network blocked")
            page.set_content(html, wait_until="load")
            assert not requested, f"the e-mail asks for outside resources (blocked): {requested}"

            step("no horizontal scroll")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= WIDTH, f"the page is {width} px wide at a {WIDTH} px viewport: it scrolls sideways"

            step(f"the '{BUTTON}' button")
            button = page.get_by_role("link", name=BUTTON, exact=True)
            assert button.count() == 1, f"{button.count()} links named '{BUTTON}', expected one"
            href = button.get_attribute("href")
            assert href == args.expect_link, f"the button links to {href!r}, expected {args.expect_link!r}"
            assert button.is_visible(), "the button is not visible"
            box = button.bounding_box()
            assert box and box["height"] >= 44, f"the button is {box and box['height']} px tall, at least 44 expected"
            assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, f"the button overflows the viewport: {box}"
            print(f"   {box['width']:.0f}x{box['height']:.0f} px, links to the pay page")

            step("the expected texts")
            text = collapsed(page.inner_text("body"))
            missing = [t for t in args.expect_text if collapsed(t) not in text]
            assert not missing, f"not in the e-mail's text: {missing}\n--- its text:\n{text}"
            print(f"   {len(args.expect_text)} found")

            step("the unsubscribe link")
            links = page.locator("a[href]")
            unsubscribe = [i for i in range(links.count()) if links.nth(i).get_attribute("href") == args.unsubscribe]
            assert unsubscribe, f"no link to {args.unsubscribe}"
            link = links.nth(unsubscribe[0])
            assert link.is_visible() and link.inner_text().strip(), "the unsubscribe link is hidden or has no text"
            print(f"   '{link.inner_text().strip()}'")

            step("axe-core")
            others = axe(page, args.axe)
            print(f"   no serious or critical violation; minor or moderate: {', '.join(others) or 'none'}")
            assert not errors, f"errors in the page: {errors}"

            Path(args.screenshot).parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=args.screenshot, full_page=True)
            print(f"   screenshot: {args.screenshot}")
            assert not requested, f"the e-mail asked for outside resources (blocked): {requested}"
            context.close()
        finally:
            browser.close()


def main():
    parser = argparse.ArgumentParser(description="A reminder e-mail's HTML in headless Chromium at phone width.")
    parser.add_argument("--html", required=True, help="the e-mail's HTML body")
    parser.add_argument("--expect-link", required=True, help="the pay link the button must point at")
    parser.add_argument("--expect-text", action="append", default=[], help="a text that must be visible (repeatable)")
    parser.add_argument("--unsubscribe", required=True, help="the unsubscribe link that must be present")
    parser.add_argument("--screenshot", required=True, help="where the full-page PNG goes")
    parser.add_argument("--axe", default=str(ROOT / "tests/validators/node_modules/axe-core/axe.min.js"),
                        help="axe-core's axe.min.js (tests/validators, npm)")
    args = parser.parse_args()
    try:
        check(args)
    except AssertionError as error:
        print(f"reminder e-mail in chromium: FAILED: {error}", file=sys.stderr)
        return 1
    print("reminder e-mail in chromium: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
