#!/usr/bin/env python3
"""A local stand-in for Stripe.js, in front of localstripe (the local stack's Stripe).

The payer's card page loads `<this>/v3/` as it loads https://js.stripe.com/v3/ on AWS, and calls
what Stripe.js offers it: `Stripe(publishableKey)`, `.elements().create('card').mount(selector)`
`.confirmCardPayment(clientSecret, {payment_method: {card}})`, which resolves to
`{paymentIntent}` or, as Stripe.js does, `{error: {type, code, decline_code, message}}`, and
`.confirmCardSetup(clientSecret, {payment_method: {card}})` (a card saved for later charges), which
resolves to `{setupIntent}` or the error.
localstripe's own script fakes 3-D Secure only, so this one confirms as Stripe does for a browser:
the card goes to the gateway (a token made with the publishable key), the intent is confirmed with
it, and the intent comes back. The card never reaches the billing service. Test tooling only: nothing here is in the
service, and it listens on 127.0.0.1 alone.

    python3 stripe_js.py --port 8421 --localstripe http://127.0.0.1:8420
"""

import argparse
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The key this stand-in confirms intents with at localstripe (any `sk_` key is one there).
STANDIN_KEY = "sk_test_stripe_js_standin"

SCRIPT = r"""
(function () {
  var base = (function () { var s = document.currentScript && document.currentScript.src; return s ? new URL(s).origin : location.origin; })();
  function Element() { this.inputs = null; }
  Element.prototype.mount = function (where) {
    var root = typeof where === 'string' ? document.querySelector(where) : where;
    var self = this;
    self.inputs = {};
    [['number', 'Número do cartão', 'cc-number', 19], ['expiry', 'Validade (MM/AA)', 'cc-exp', 5], ['cvc', 'CVC', 'cc-csc', 4]].forEach(function (f) {
      var label = document.createElement('label');
      label.textContent = f[1] + ' ';
      var input = document.createElement('input');
      input.name = f[0]; input.autocomplete = f[2]; input.inputMode = 'numeric'; input.size = f[3]; input.maxLength = f[3] + 4;
      input.setAttribute('data-card', f[0]);
      label.appendChild(input);
      root.appendChild(label);
      self.inputs[f[0]] = input;
    });
  };
  Element.prototype.value = function () {
    var digits = function (t) { return (t || '').replace(/\D/g, ''); };
    var expiry = digits(this.inputs.expiry.value);
    return { number: digits(this.inputs.number.value), exp_month: expiry.slice(0, 2), exp_year: '20' + expiry.slice(2, 4), cvc: digits(this.inputs.cvc.value) };
  };
  window.Stripe = function (key) {
    return {
      elements: function () { return { create: function () { return new Element(); } }; },
      confirmCardPayment: function (secret, data) {
        var intent = (secret.match(/^(pi_[A-Za-z0-9]+)_secret_/) || [])[1];
        var card = data && data.payment_method && data.payment_method.card;
        if (!intent || !card) { return Promise.resolve({ error: { message: 'Dados do pagamento incompletos.' } }); }
        return fetch(base + '/v1/payment_intents/' + intent + '/confirm', {
          method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ key: key, client_secret: secret, card: card.value() })
        }).then(function (r) { return r.json(); }).then(function (body) {
          return body.error ? { error: body.error } : { paymentIntent: body };
        });
      },
      confirmCardSetup: function (secret, data) {
        var setup = (secret.match(/^(seti_[A-Za-z0-9]+)_secret_/) || [])[1];
        var card = data && data.payment_method && data.payment_method.card;
        if (!setup || !card) { return Promise.resolve({ error: { message: 'Dados do cartão incompletos.' } }); }
        return fetch(base + '/v1/setup_intents/' + setup + '/confirm', {
          method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ key: key, client_secret: secret, card: card.value() })
        }).then(function (r) { return r.json(); }).then(function (body) {
          return body.error ? { error: body.error } : { setupIntent: body };
        });
      }
    };
  };
})();
"""


def call(api, method, path, form, key):
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(api + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + key)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


class Handler(BaseHTTPRequestHandler):
    api = ""

    def log_message(self, format, *args):
        pass

    def answer(self, status, body, kind="application/json"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "Content-Type")
        self.send_header("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
        self.end_headers()
        self.wfile.write(data)

    def do_OPTIONS(self):
        self.answer(204, "")

    def do_GET(self):
        if self.path.split("?")[0] in ("/v3", "/v3/"):
            self.answer(200, SCRIPT, "application/javascript")
        else:
            self.answer(404, {"error": {"message": "not found"}})

    def do_POST(self):
        setup = re.fullmatch(r"/v1/setup_intents/(seti_[A-Za-z0-9]+)/confirm", self.path)
        if setup:
            return self.confirm_setup(setup.group(1))
        found = re.fullmatch(r"/v1/payment_intents/(pi_[A-Za-z0-9]+)/confirm", self.path)
        if not found:
            return self.answer(404, {"error": {"message": "not found"}})
        intent = found.group(1)
        try:
            sent = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        except ValueError:
            return self.answer(400, {"error": {"message": "not JSON"}})
        key, secret, card = sent.get("key", ""), sent.get("client_secret", ""), sent.get("card") or {}
        if not key.startswith("pk_") or not secret.startswith(intent + "_secret_"):
            return self.answer(401, {"error": {"message": "Chave ou segredo do pagamento inválido."}})
        status, current = call(self.api, "GET", "/v1/payment_intents/" + intent, None, STANDIN_KEY)
        if status != 200 or current.get("client_secret") != secret:
            return self.answer(401, {"error": {"message": "Pagamento desconhecido."}})
        form = {"key": key}
        for field in ("number", "exp_month", "exp_year", "cvc"):
            form["card[%s]" % field] = str(card.get(field, ""))
        status, token = call(self.api, "POST", "/v1/tokens", form, key)
        if status != 200:
            # Stripe.js checks the fields before it calls: a card it cannot read is a validation error.
            return self.answer(400, {"error": {"type": "validation_error", "code": "invalid_number",
                                               "message": "Os dados do cartão estão incompletos ou inválidos."}})
        card_id = token["card"]["id"]
        status, body = call(self.api, "POST", "/v1/payment_intents/" + intent, {"payment_method": card_id}, STANDIN_KEY)
        if status == 200:
            status, body = call(self.api, "POST", "/v1/payment_intents/%s/confirm" % intent, {}, STANDIN_KEY)
        if status != 200:
            # As confirmCardPayment resolves: the gateway's error (type, code, decline_code, message).
            error = body.get("error") or {}
            kept = {k: error[k] for k in ("type", "code", "decline_code", "message") if k in error}
            return self.answer(402, {"error": {"type": "card_error", "message": "Your card was declined.", **kept}})
        if body.get("status") == "requires_payment_method":
            return self.answer(402, {"error": {"type": "card_error", "code": "card_declined",
                                               "message": "Your card was declined."}})
        self.answer(200, body)


    def confirm_setup(self, setup):
        """confirmCardSetup: the card made a payment method at the gateway, the SetupIntent
        confirmed with it and, as Stripe does when a SetupIntent with a customer succeeds (and
        localstripe does not), the payment method attached to that customer."""
        try:
            sent = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        except ValueError:
            return self.answer(400, {"error": {"message": "not JSON"}})
        key, secret, card = sent.get("key", ""), sent.get("client_secret", ""), sent.get("card") or {}
        if not key.startswith("pk_") or not secret.startswith(setup + "_secret_"):
            return self.answer(401, {"error": {"message": "Chave ou segredo do cadastro inválido."}})
        status, current = call(self.api, "GET", "/v1/setup_intents/" + setup, None, STANDIN_KEY)
        if status != 200 or current.get("client_secret") != secret:
            return self.answer(401, {"error": {"message": "Cadastro desconhecido."}})
        form = {"type": "card"}
        for field in ("number", "exp_month", "exp_year", "cvc"):
            form["card[%s]" % field] = str(card.get(field, ""))
        status, method = call(self.api, "POST", "/v1/payment_methods", form, STANDIN_KEY)
        if status != 200:
            return self.answer(400, {"error": {"type": "validation_error", "code": "invalid_number",
                                               "message": "Os dados do cartão estão incompletos ou inválidos."}})
        status, body = call(self.api, "POST", "/v1/setup_intents/%s/confirm" % setup,
                            {"payment_method": method["id"]}, STANDIN_KEY)
        if status != 200:
            error = body.get("error") or {}
            kept = {k: error[k] for k in ("type", "code", "decline_code", "message") if k in error}
            return self.answer(402, {"error": {"type": "card_error", "message": "Your card was declined.", **kept}})
        if body.get("status") == "succeeded" and current.get("customer"):
            call(self.api, "POST", "/v1/payment_methods/%s/attach" % method["id"],
                 {"customer": current["customer"]}, STANDIN_KEY)
        self.answer(200, body)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--localstripe", required=True, help="localstripe's base URL")
    args = parser.parse_args()
    Handler.api = args.localstripe.rstrip("/")
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
