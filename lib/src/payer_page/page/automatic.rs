//! The page where the payer of a schedule's billing authorizes Pix Automático for the next ones
//! (`/pay/<token>/pix-automatico`): the recurrence's QR code (journey 2), to scan or paste in the
//! bank's app, or a word that it is authorized already.

use super::html::{escape, money, STYLE};
use super::{qr_svg, SCRIPT};
use crate::billets::model::BankBillet;
use crate::values::Money;

/// The page; `qr`: the recurrence's payload to authorize, or `None` once authorized.
pub fn pix_automatic(billet: &BankBillet, amount: Money, period: &str, qr: Option<&str>, back: &str) -> String {
    let recipient = escape(&billet.recipient.recipient_full_name);
    let body = match qr.and_then(|payload| qr_svg(payload).map(|svg| (payload, svg))) {
        Some((payload, svg)) => format!(
            "<p>Escaneie o QR Code ou cole o código no aplicativo do seu banco e confirme a autorização. \
             As próximas cobranças ({}, {}) serão debitadas na data de vencimento; se um débito \
             não acontecer, você recebe o aviso com o link para pagar de outro jeito. Você pode cancelar \
             a autorização a qualquer momento no seu banco.</p>{svg}\
             <p class=\"note\">Pix Automático copia e cola:</p><p id=\"pix\" class=\"code\">{}</p>\
             <button type=\"button\" data-copy=\"pix\" data-done=\"Código copiado\">Copiar código</button>",
            money(amount),
            escape(period),
            escape(payload)
        ),
        None => {
            "<p class=\"state paid\">O Pix Automático destas cobranças já está autorizado no seu banco.</p>".to_owned()
        }
    };
    format!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex,nofollow\"><meta name=\"referrer\" content=\"no-referrer\">\
         <link rel=\"icon\" href=\"data:,\"><title>Pix Automático – {recipient}</title><style>{STYLE}</style></head>\
         <body><main><h1>Autorizar o Pix Automático</h1>\
         <section aria-labelledby=\"rec-title\"><h2 id=\"rec-title\">Cobranças recorrentes de {recipient}</h2>{body}\
         <p id=\"status\" role=\"status\" aria-live=\"polite\"></p></section>\
         <p><a href=\"{}\">Voltar ao boleto e ao Pix</a></p></main><script>{SCRIPT}</script></body></html>",
        escape(back)
    )
}
