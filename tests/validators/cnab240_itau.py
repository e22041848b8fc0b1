#!/usr/bin/env python3
"""Reads a CNAB 240 remittance of ours back through an independent implementation of Itaú's
collection layout: Stark Bank's `febraban` package (PyPI, pinned in infra/local/requirements.txt).

For every title described in the JSON (what the service meant to write), it builds febraban's own
P/Q/R segments with the same values and compares ours with them field by field. Where each field
lies is not known to this script: it is found by building febraban's segment twice with two
different values of that field and taking the positions that changed.

Usage: cnab240_itau.py REMITTANCE_FILE TITLES_JSON      (prints a table; exit 1 on any mismatch)
       cnab240_itau.py --return RETURN_FILE             (febraban's reading of a return file, JSON)
JSON: {"agency", "account", "account_dac", "carteira", "titles": [{"our_number", "due_date"
(YYYY-MM-DD), "amount_cents", "payer": {"document", "name", "street", "district", "postal_code",
"city", "state"}}]}
"""

import json
import re
import sys
import unicodedata
from datetime import datetime

from febraban.cnab240.itau.charge.slip.slip import Slip
from febraban.cnab240.user import User, UserAddress, UserBank


def fold(text):
    """What the layout's text fields take (febraban refuses anything else): upper-case letters,
    digits, spaces and hyphens; accents dropped, other characters spaces, runs of spaces one. Done
    here on its own, not by the service's code."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().upper()
    return " ".join(re.sub(r"[^A-Z0-9\-]", " ", plain).split())


def our_number_dac(agency, account, carteira, our_number):
    digits = agency + account + carteira + our_number
    total = 0
    for position, digit in enumerate(reversed(digits)):
        product = int(digit) * (2 if position % 2 == 0 else 1)
        total += product // 10 + product % 10
    return (10 - total % 10) % 10


def build(spec, title):
    slip = Slip()
    bank = UserBank(bankId="341", branchCode=spec["agency"], accountNumber=spec["account"],
                    accountVerifier=str(spec["account_dac"]))
    slip.setSender(User(name="", identifier="", bank=bank))
    payer = title["payer"]
    address = UserAddress(streetLine1=fold(payer["street"]), city=fold(payer["city"]), stateCode=fold(payer["state"]),
                          zipCode=payer["postal_code"], district=fold(payer["district"]))
    slip.setPayer(User(name=fold(payer["name"]), identifier=payer["document"], address=address))
    slip.setAmountInCents(str(title["amount_cents"]))
    slip.setExpirationDate(datetime.strptime(title["due_date"], "%Y-%m-%d"))
    dac = our_number_dac(spec["agency"], spec["account"], spec["carteira"], title["our_number"])
    slip.segmentP.setBankIdentifier(title["our_number"], dac)
    return slip


def changed(a, b):
    """The positions where two lines differ, as one slice."""
    positions = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    return slice(positions[0], positions[-1] + 1)


def variant(title, path, value):
    copy = json.loads(json.dumps(title))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy


# (name, segment, the title's field, two values that differ in every position of the field)
FIELDS = [
    ("amount", "P", ("amount_cents",), (111111111111111, 222222222222222)),
    ("due date", "P", ("due_date",), ("2011-11-11", "2022-12-22")),
    ("our number", "P", ("our_number",), ("11111111", "22222222")),
    ("payer document", "Q", ("payer", "document"), ("111111111111111", "222222222222222")),
    ("payer name", "Q", ("payer", "name"), ("A" * 30, "B" * 30)),
    ("payer street", "Q", ("payer", "street"), ("A" * 40, "B" * 40)),
    ("payer district", "Q", ("payer", "district"), ("A" * 15, "B" * 15)),
    ("payer postal code", "Q", ("payer", "postal_code"), ("11111111", "22222222")),
    ("payer city", "Q", ("payer", "city"), ("A" * 15, "B" * 15)),
    ("payer state", "Q", ("payer", "state"), ("AA", "BB")),
]


def segment(slip, name):
    return {"P": slip.segmentP, "Q": slip.segmentQ, "R": slip.segmentR}[name].content


def read_return(path):
    """A return file as febraban's result parser reads it: per title its movement, amount, our
    reference, interest and penalty, discount (cents) and the status febraban gives it."""
    from febraban.cnab240.itau.charge.result.parser import SlipParser
    text = open(path, "rb").read().decode("ascii")
    titles = SlipParser.parseText(text)
    print(json.dumps([{"movement": t.occurrence, "amount_cents": t.amountInCents, "reference": t.identifier,
                       "interest_cents": t.fine, "discount_cents": t.discount, "status": t.status()}
                      for t in titles]))
    return 0


def main():
    if sys.argv[1] == "--return":
        return read_return(sys.argv[2])
    remittance, described = sys.argv[1], sys.argv[2]
    lines = open(remittance, "rb").read().decode("ascii").split("\r\n")
    spec = json.load(open(described))
    details = [line for line in lines if len(line) == 240 and line[7] == "3"]
    bad = 0
    for n, title in enumerate(spec["titles"]):
        ours = {line[13]: line for line in details[3 * n:3 * n + 3]}
        theirs = build(spec, title)
        checks = list(FIELDS)
        for name, seg, path, (one, two) in checks:
            where = changed(segment(build(spec, variant(title, path, one)), seg),
                            segment(build(spec, variant(title, path, two)), seg))
            expected, found = segment(theirs, seg)[where], ours[seg][where]
            ok = expected == found
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} title {n + 1} {seg} {where.start + 1:>3}-{where.stop:<3} {name:<18} {found!r}"
                  + ("" if ok else f" (febraban: {expected!r})"))
        # The agreement: agency, account and its DAC, and the carteira, where febraban's segment P has them.
        for name, where in (("agency/account/DAC", slice(17, 37)), ("carteira", slice(37, 40)),
                            ("our number DAC", slice(48, 49))):
            expected, found = theirs.segmentP.content[where], ours["P"][where]
            ok = expected == found
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} title {n + 1} P {where.start + 1:>3}-{where.stop:<3} {name:<18} {found!r}"
                  + ("" if ok else f" (febraban: {expected!r})"))
    print(f"{len(spec['titles'])} titles, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
