#!/usr/bin/env python3
"""Runs localstripe (PyPI, GPL; installed in its own venv by infra/lib.sh) as its own process on
127.0.0.1 alone, from scratch: its `--port` entry point listens on every interface and loads what
an earlier run left in /tmp. Nothing of it is linked into the service.

Where localstripe departs from Stripe's documentation, this launcher makes it behave as documented
(docs.stripe.com/testing, "Declined payments"; docs.stripe.com/payments/paymentintents/lifecycle):

- the test cards Stripe declines at the charge are declined at the charge, with Stripe's `code`,
  `decline_code` and message (localstripe declines `4000 0000 0000 0002`, `…9995`, `…0069`,
  `…0127` only when a card is attached to a customer, and approves them in a payment);
- a payment intent whose charge failed is back at `requires_payment_method` and takes another
  card and a new confirmation, as Stripe's does (localstripe answers "Bad request");
- a charge's funds are held before they are available (`available_on` days after the charge: the
  account's settlement `delay_days`, docs.stripe.com/api/balance-settings), where localstripe makes
  them available the moment they are charged.

    .local/stripe-venv/bin/python localstripe_run.py --port 8420
"""

import argparse

from aiohttp import web
from localstripe import resources
from localstripe.errors import UserError

# Stripe's test cards declined at the charge: code, decline code, message (docs.stripe.com/testing).
DECLINED = {
    "4000000000000002": ("card_declined", "generic_decline", "Your card was declined."),
    "4000000000009995": ("card_declined", "insufficient_funds", "Your card has insufficient funds."),
    "4000000000009987": ("card_declined", "lost_card", "Your card was declined."),
    "4000000000009979": ("card_declined", "stolen_card", "Your card was declined."),
    "4000000000000069": ("expired_card", None, "Your card has expired."),
    "4000000000000127": ("incorrect_cvc", None, "Your card's security code is incorrect."),
    "4000000000000119": ("processing_error", None,
                         "An error occurred while processing your card. Try again in a little bit."),
    "4000000000000341": ("card_declined", "generic_decline", "Your card was declined."),
}


def declined_at_the_charge():
    """Cards and payment methods of DECLINED fail their charge, with Stripe's reasons."""
    charging = resources.PaymentMethod._charging_is_declined

    def charging_is_declined(self):
        return charging(self) or getattr(self, "_card_number", None) in DECLINED

    resources.PaymentMethod._charging_is_declined = charging_is_declined
    resources.Card._charging_is_declined = charging_is_declined

    def set_auth_failure(self):
        number = getattr(resources.PaymentMethod._api_retrieve(self.payment_method), "_card_number", None)
        code, decline_code, message = DECLINED.get(number, DECLINED["4000000000000002"])
        self.status = "failed"
        self.failure_code = code
        self.failure_message = message
        self._decline_code = decline_code

    def raise_failure(self):
        error = UserError(402, self.failure_message, {"code": self.failure_code, "charge": self.id})
        error.body["error"]["type"] = "card_error"
        if getattr(self, "_decline_code", None):
            error.body["error"]["decline_code"] = self._decline_code
        if self.payment_intent:
            error.body["error"]["payment_intent"] = {"id": self.payment_intent, "status": "requires_payment_method"}
        raise error

    resources.Charge._set_auth_failure = set_auth_failure
    resources.Charge._raise_failure = raise_failure


def confirmed_again_after_a_failure():
    """An intent whose last charge failed takes a new confirmation (with the card it now has)."""
    confirm = resources.PaymentIntent._api_confirm.__func__

    def api_confirm(cls, id, payment_method=None, **kwargs):
        if isinstance(id, str) and id.startswith("pi_"):
            intent = cls._api_retrieve(id)
            charge = intent.latest_charge
            if charge is not None and charge.status == "failed" and intent.payment_method and not intent._canceled:
                intent.latest_charge = None
        return confirm(cls, id, payment_method=payment_method, **kwargs)

    resources.PaymentIntent._api_confirm = classmethod(api_confirm)
    # The routes are bound when localstripe's server module is imported: the confirmation's too.
    resources.extra_apis[:] = [
        (method, url, resources.PaymentIntent._api_confirm if url == "/v1/payment_intents/{id}/confirm" else func)
        for method, url, func in resources.extra_apis
    ]


# The days a charge's funds are held: Stripe's settlement delay, never zero.
DELAY_DAYS = 2


def funds_held():
    """A balance transaction's funds are available DELAY_DAYS after it was made."""
    init = resources.BalanceTransaction.__init__

    def held(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.available_on = self.created + DELAY_DAYS * 86_400
        self.status = "pending"

    resources.BalanceTransaction.__init__ = held


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    declined_at_the_charge()
    confirmed_again_after_a_failure()
    funds_held()
    from localstripe import server  # after the changes above: it binds its routes when imported

    web.run_app(server.app, host="127.0.0.1", port=args.port, print=None)


if __name__ == "__main__":
    main()
