//! The page where a payer stops its reminders, and its Content-Security-Policy (one form, no
//! script).

use std::sync::OnceLock;

use super::html::{digest, escape, STYLE};

/// The reminders page's Content-Security-Policy: the page's style, and its one form posting to
/// itself; no script.
pub fn reminders_policy() -> &'static str {
    static POLICY: OnceLock<String> = OnceLock::new();
    POLICY.get_or_init(|| {
        format!(
            "default-src 'none'; style-src {}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
            digest(STYLE)
        )
    })
}

/// The page where the payer of `beneficiary`'s billing stops its reminders: asked (`done` false:
/// one button that posts to the page itself, since a link scanner must not opt a payer out by
/// following the e-mail's link), or done. `pay` is the payer page's path.
pub fn reminders(beneficiary: &str, done: bool, pay: &str) -> String {
    let beneficiary = escape(beneficiary);
    let body = match done {
        false => format!(
            "<h1>Lembretes de pagamento</h1><section><p>Você recebe lembretes de pagamento de <strong>{beneficiary}</strong> \
             por e-mail e WhatsApp antes e depois do vencimento.</p><form method=\"post\">\
             <button type=\"submit\">Não quero mais receber lembretes</button></form>\
             <p class=\"note\">Isso não cancela a cobrança: ela continua valendo.</p></section>"
        ),
        true => format!(
            "<h1>Lembretes cancelados</h1><section><p class=\"state paid\" role=\"status\">Você não receberá mais \
             lembretes de pagamento de <strong>{beneficiary}</strong>.</p>\
             <p>A cobrança continua valendo. <a href=\"{}\">Ver o boleto e o Pix</a></p></section>",
            escape(pay)
        ),
    };
    format!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex,nofollow\"><meta name=\"referrer\" content=\"no-referrer\">\
         <link rel=\"icon\" href=\"data:,\"><title>Lembretes de pagamento – {beneficiary}</title>\
         <style>{STYLE}</style></head><body><main>{body}</main></body></html>"
    )
}
