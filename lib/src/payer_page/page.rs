//! The payer's page as HTML: pure functions of what the billet and its billing say today.
//!
//! One document, pt-BR, mobile first, no framework and no request beyond itself: the style and the
//! copy script are inline and allowed by their SHA-256 in the Content-Security-Policy
//! ([`content_security_policy`]), the Pix QR code is inline SVG. Every text from a record is
//! escaped. A billet that can no longer be paid shows its state in words and no payable code.

use std::sync::OnceLock;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use chrono::NaiveDate;
use sha2::{Digest, Sha256};

use crate::billets::model::BankBillet;
use crate::billets::printing::pix_qr::{self, QUIET_ZONE};
use crate::billets::printing::text::{amount, date};
use crate::billets::BilletStatus;
use crate::billings::compute;
use crate::billings::Billing;
use crate::values::{BillingStatus, Money};

/// Where the billet stands for its payer today.
#[derive(Clone, Debug, PartialEq)]
pub enum Standing {
    /// It can be paid: what is due today.
    Payable(Due),
    /// The bank has not answered its registration yet: no code to pay with.
    Registering,
    /// Paid (on that day, when the bank said).
    Paid(Option<NaiveDate>),
    /// Written off: the billing was settled some other way.
    Discharged,
    Canceled,
    /// Cancelled because the billing got a new billet.
    Replaced,
    /// Past its return date (the bank no longer takes it).
    Expired(NaiveDate),
    /// The bank refused to register it.
    Rejected,
    /// A card payment of its billing is authorized or in review: not to be paid again meanwhile.
    CardUnderWay,
}

/// What the payer owes today, as the billing computes it (`billings::compute`).
#[derive(Clone, Debug, PartialEq)]
pub struct Due {
    pub discount: Money,
    /// Interest and penalty.
    pub charges: Money,
    pub total: Money,
    pub days_overdue: i64,
}

impl Standing {
    /// The billet's standing, from it and its billing, as of `today` (São Paulo).
    pub fn of(billet: &BankBillet, billing: &Billing, today: NaiveDate) -> Standing {
        match billet.status {
            BilletStatus::Paid => return Standing::Paid(billet.settlement.paid_at),
            BilletStatus::Discharged => return Standing::Discharged,
            BilletStatus::Rejected => return Standing::Rejected,
            BilletStatus::Canceled
                if billing.status == BillingStatus::Opened && billing.billet_id != Some(billet.id) =>
            {
                return Standing::Replaced
            }
            BilletStatus::Canceled => return Standing::Canceled,
            // Its boleto is not at the bank yet; with a Pix charge it is payable by Pix already.
            status
                if status.awaiting_bank() && (billet.pix_psp.is_none() || billet.registered.pix_qr_code.is_none()) =>
            {
                return Standing::Registering
            }
            _ => {}
        }
        match billing.status {
            BillingStatus::Canceled | BillingStatus::Returned => return Standing::Canceled,
            BillingStatus::Paid | BillingStatus::Available | BillingStatus::InDispute => {
                return Standing::Paid(billing.gw_payment_date)
            }
            BillingStatus::AwaitingCapture | BillingStatus::UnderReview => return Standing::CardUnderWay,
            BillingStatus::Discharged => return Standing::Discharged,
            _ => {}
        }
        let terms = billing.terms();
        if let Some(until) = compute::return_date(terms.due_date, billing.devolution(), billing.instruction_days) {
            if today > until {
                return Standing::Expired(until);
            }
        }
        let computed = compute::compute(&terms, today);
        Standing::Payable(Due {
            discount: Money::new(computed.discount_amount),
            charges: Money::new(computed.extra_amount),
            total: Money::new(computed.amount_payable),
            days_overdue: computed.days_overdue,
        })
    }

    fn words(&self) -> (&'static str, String) {
        match self {
            Standing::Payable(_) => ("payable", String::new()),
            Standing::Registering => (
                "waiting",
                "Este boleto está sendo registrado no banco. Volte em alguns minutos para pagá-lo.".to_owned(),
            ),
            Standing::Paid(Some(on)) => ("paid", format!("Este boleto foi pago em {}. Obrigado!", date(*on))),
            Standing::Paid(None) => ("paid", "Este boleto foi pago. Obrigado!".to_owned()),
            Standing::Discharged => {
                ("closed", "Este boleto foi baixado: a cobrança foi quitada de outra forma.".to_owned())
            }
            Standing::Canceled => ("closed", "Este boleto foi cancelado e não deve ser pago.".to_owned()),
            Standing::Replaced => (
                "closed",
                "Este boleto foi substituído por um novo e não deve ser pago. Peça o novo boleto ao beneficiário."
                    .to_owned(),
            ),
            Standing::Expired(until) => (
                "closed",
                format!(
                    "Este boleto venceu e não pode mais ser pago desde {}. Fale com o beneficiário.",
                    date(*until + chrono::Duration::days(1))
                ),
            ),
            Standing::Rejected => (
                "closed",
                "O banco não registrou este boleto; ele não pode ser pago. Fale com o beneficiário.".to_owned(),
            ),
            Standing::CardUnderWay => (
                "waiting",
                "Um pagamento com cartão desta cobrança está em análise. Não pague de novo; esta página mostrará \
                 quando ele for confirmado."
                    .to_owned(),
            ),
        }
    }
}

/// The text of `value` safe inside HTML text and attribute values.
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A CPF or CNPJ with the middle digits shown and the rest hidden, as Brazilian services show
/// them to third parties (`***.456.789-**`, `**.345.678/0001-**`); anything else fully hidden.
fn mask_document(document: &str) -> String {
    let digits: String = document.chars().filter(char::is_ascii_alphanumeric).collect();
    match digits.len() {
        11 => format!("***.{}.{}-**", &digits[3..6], &digits[6..9]),
        14 => format!("**.{}.{}/{}-**", &digits[2..5], &digits[5..8], &digits[8..12]),
        0 => String::new(),
        _ => "***".to_owned(),
    }
}

fn money(value: Money) -> String {
    format!("R$\u{a0}{}", amount(value))
}

const STYLE: &str = "\
:root{color-scheme:light;--ink:#1a1a1a;--muted:#4d4d4d;--line:#d0d0d0;--accent:#0b5394;--ok:#1e6b32;--warn:#8a1c1c}\
*{box-sizing:border-box}\
body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Liberation Sans',sans-serif;color:var(--ink);background:#f4f5f7}\
main{max-width:40rem;margin:0 auto;padding:1rem}\
h1{font-size:1.35rem;margin:.25rem 0 1rem}\
h2{font-size:1.05rem;margin:0 0 .5rem}\
section{background:#fff;border:1px solid var(--line);border-radius:.5rem;padding:1rem;margin:0 0 1rem}\
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0}\
dt{color:var(--muted)}dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}\
.total{display:contents}.total dt,.total dd{font-weight:700;font-size:1.15rem;color:var(--ink)}\
.code{font-family:ui-monospace,'Liberation Mono',monospace;font-size:.95rem;overflow-wrap:anywhere;background:#f4f5f7;border:1px solid var(--line);border-radius:.35rem;padding:.5rem;margin:0 0 .5rem;user-select:all}\
button,.button{display:inline-block;min-height:2.75rem;padding:.6rem 1rem;font:inherit;font-weight:600;color:#fff;background:var(--accent);border:0;border-radius:.35rem;text-decoration:none;cursor:pointer}\
button:focus-visible,.button:focus-visible{outline:3px solid #f2a900;outline-offset:2px}\
.qr{display:block;width:14rem;max-width:100%;height:auto;margin:0 auto 1rem}\
.state{font-weight:600;border-left:.35rem solid var(--warn);padding-left:.75rem}\
.state.paid{border-color:var(--ok)}\
.note{color:var(--muted);font-size:.9rem}\
#status{min-height:1.5rem;font-weight:600;color:var(--ok)}\
#card-status{min-height:1.5rem;font-weight:600;color:var(--warn)}#card-status.ok{color:var(--ok)}\
.card-field{border:1px solid var(--line);border-radius:.35rem;padding:.6rem;margin:0 0 .75rem;background:#fff}\
.card-field input{font:inherit;max-width:100%;margin:.15rem}\
@media (min-width:48rem){main{padding:2rem 1rem}.pay{display:grid;grid-template-columns:1fr 1fr;gap:1rem}.pay section{margin:0}}";

const SCRIPT: &str = "\
document.querySelectorAll('button[data-copy]').forEach(function(b){\
b.addEventListener('click',function(){\
var s=document.getElementById('status'),f=document.getElementById(b.getAttribute('data-copy'));\
function done(ok){s.textContent=ok?b.getAttribute('data-done'):'Não foi possível copiar: selecione o código e copie.';}\
function old(){var r=document.createRange(),l=getSelection();r.selectNodeContents(f);l.removeAllRanges();l.addRange(r);\
try{done(document.execCommand('copy'));}catch(e){done(false);}}\
if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(f.textContent).then(function(){done(true);},old);}else{old();}\
});});";

fn digest(text: &str) -> String {
    format!("'sha256-{}'", STANDARD.encode(Sha256::digest(text.as_bytes())))
}

/// The page's Content-Security-Policy: nothing but its own inline style and script (by their
/// digests); no other origin, no frame, no form, no base.
pub fn content_security_policy() -> &'static str {
    static POLICY: OnceLock<String> = OnceLock::new();
    POLICY.get_or_init(|| {
        format!(
            "default-src 'none'; style-src {}; script-src {}; img-src data:; base-uri 'none'; \
             form-action 'none'; frame-ancestors 'none'",
            digest(STYLE),
            digest(SCRIPT)
        )
    })
}

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

/// The card checkout's script: asks the page's own route for the day's intent, mounts the
/// gateway's card field (Stripe.js: the card goes from the payer's browser to the gateway alone),
/// confirms the payment with the gateway, then tells the page's route, which reads it back from
/// the gateway.
const CARD_SCRIPT: &str = "\
(function(){\
var form=document.getElementById('card-form'),say=document.getElementById('card-status'),pay=document.getElementById('pay');\
var base=location.pathname.replace(/\\/$/,''),stripe=null,card=null,opened=null;\
function show(t,ok){say.textContent=t;say.className=ok?'ok':'';}\
function json(r){return r.json().then(function(b){return{status:r.status,body:b};});}\
fetch(base,{method:'POST'}).then(json).then(function(a){\
if(a.status!==200){show(a.body.message||'Pagamento com cartão indisponível.');return;}\
opened=a.body;stripe=Stripe(opened.publishable_key);card=stripe.elements().create('card');card.mount('#card-element');pay.disabled=false;\
}).catch(function(){show('Não foi possível abrir o pagamento com cartão. Tente novamente.');});\
form.addEventListener('submit',function(e){e.preventDefault();if(!opened)return;pay.disabled=true;show('Processando o pagamento…');\
stripe.confirmCardPayment(opened.client_secret,{payment_method:{card:card}}).then(function(r){\
if(r.error){show((r.error&&r.error.message)||'O pagamento não foi aprovado.');pay.disabled=false;return;}\
return fetch(base+'/'+encodeURIComponent(opened.intent),{method:'POST'}).then(json).then(function(a){\
var done=a.body.stage==='succeeded'||a.body.stage==='authorized';show(a.body.message,done);if(done){form.hidden=true;}else{pay.disabled=false;}});\
}).catch(function(){show('Não foi possível concluir o pagamento. Tente novamente.');pay.disabled=false;});});\
})();";

/// The card checkout of a payable billet: what is due today, the gateway's card field, one
/// button. `gateway_js` is the gateway's script (Stripe.js); `back` the billet's page.
pub fn card(billet: &BankBillet, due: &Due, gateway_js: &str, back: &str) -> String {
    let recipient = escape(&billet.recipient.recipient_full_name);
    format!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex,nofollow\"><meta name=\"referrer\" content=\"no-referrer\">\
         <link rel=\"icon\" href=\"data:,\"><title>Pagar com cartão – {recipient}</title><style>{STYLE}</style></head>\
         <body><main><h1>Pagar com cartão</h1>\
         <section aria-labelledby=\"due\"><h2 id=\"due\">Cobrança de {recipient}</h2><dl>\
         <dt>Vencimento</dt><dd>{}</dd><div class=\"total\"><dt>Total hoje</dt><dd>{}</dd></div></dl></section>\
         <section aria-labelledby=\"card-title\"><h2 id=\"card-title\">Dados do cartão</h2>\
         <form id=\"card-form\"><div id=\"card-element\" class=\"card-field\"></div>\
         <p><button id=\"pay\" type=\"submit\" disabled>Pagar {}</button></p></form>\
         <p id=\"card-status\" role=\"status\" aria-live=\"polite\"></p>\
         <p class=\"note\">Os dados do cartão vão direto para o processador de pagamentos; este site não os recebe.</p>\
         </section><p><a href=\"{}\">Voltar ao boleto e ao Pix</a></p></main>\
         <script src=\"{}\"></script><script>{CARD_SCRIPT}</script></body></html>",
        date(billet.due_date),
        money(due.total),
        money(due.total),
        escape(back),
        escape(gateway_js),
    )
}

/// The card checkout's Content-Security-Policy: the page's style and script, and exactly the
/// gateway's origins (`gateway`: its script's origin, its API's, and where it frames 3-D Secure):
/// script and frames from the script's origin, requests to the page itself and the gateway.
pub fn card_policy(gateway: &[String]) -> String {
    let gateway = gateway.join(" ");
    format!(
        "default-src 'none'; style-src {}; script-src {} {gateway}; connect-src 'self' {gateway}; \
         frame-src {gateway}; img-src data: {gateway}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        digest(STYLE),
        digest(CARD_SCRIPT),
    )
}

/// The Pix QR code as inline SVG: one path of dark modules, the quiet zone included.
fn qr_svg(payload: &str) -> Option<String> {
    let matrix = pix_qr::matrix(payload)?;
    let side = matrix.width + 2 * QUIET_ZONE;
    let mut path = String::new();
    for y in 0..matrix.width {
        for x in 0..matrix.width {
            if matrix.is_dark(x, y) {
                path.push_str(&format!("M{} {}h1v1h-1z", x + QUIET_ZONE, y + QUIET_ZONE));
            }
        }
    }
    Some(format!(
        "<svg class=\"qr\" role=\"img\" aria-labelledby=\"qr-title\" viewBox=\"0 0 {side} {side}\" \
         shape-rendering=\"crispEdges\" xmlns=\"http://www.w3.org/2000/svg\"><title id=\"qr-title\">QR Code Pix \
         deste boleto</title><rect width=\"{side}\" height=\"{side}\" fill=\"#fff\"/><path d=\"{path}\" \
         fill=\"#000\"/></svg>"
    ))
}

/// The whole page of `billet` standing as `standing`; `pdf` is the link to the printable billet.
/// `card`: the card checkout's path, when the billing takes cards (shown while it is payable).
pub fn render(billet: &BankBillet, standing: &Standing, pdf: &str, card: Option<&str>) -> String {
    let recipient = &billet.recipient;
    let payer = &billet.payer;
    let party = |name: &str, document: &str| {
        let masked = mask_document(document);
        match masked.is_empty() {
            true => escape(name),
            false => {
                let kind = if masked.contains('/') { "CNPJ" } else { "CPF" };
                format!("{}<br><span class=\"note\">{kind} {}</span>", escape(name), escape(&masked))
            }
        }
    };
    let mut body = String::new();
    body.push_str(&format!(
        "<section aria-labelledby=\"who\"><h2 id=\"who\">Boleto de {}</h2><dl>\
         <dt>Beneficiário</dt><dd>{}</dd><dt>Pagador</dt><dd>{}</dd>\
         <dt>Vencimento</dt><dd>{}</dd><dt>Valor do documento</dt><dd>{}</dd></dl></section>",
        escape(&recipient.recipient_full_name),
        party(&recipient.recipient_full_name, &recipient.recipient_document),
        party(&payer.payer_full_name, &payer.payer_document),
        date(billet.due_date),
        money(billet.amount),
    ));
    let (class, words) = standing.words();
    match standing {
        Standing::Payable(due) => body.push_str(&payable(billet, due, pdf, card)),
        _ => body.push_str(&format!(
            "<section aria-labelledby=\"state\"><h2 id=\"state\">Situação</h2><p class=\"state {class}\">{}</p>\
             </section>",
            escape(&words)
        )),
    }
    format!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex,nofollow\"><meta name=\"referrer\" content=\"no-referrer\">\
         <link rel=\"icon\" href=\"data:,\"><title>Boleto de {} – vencimento {}</title><style>{STYLE}</style></head>\
         <body><main><h1>Pagamento do boleto</h1>{body}\
         <p class=\"note\">Página segura do boleto. Não informe senhas nem dados de cartão aqui.</p></main>\
         <script>{SCRIPT}</script></body></html>",
        escape(&recipient.recipient_full_name),
        date(billet.due_date),
    )
}

/// What a payable billet shows: what is due today, the digitable line and the Pix code with their
/// copy buttons, and the PDF.
fn payable(billet: &BankBillet, due: &Due, pdf: &str, card: Option<&str>) -> String {
    let mut out = String::from("<section aria-labelledby=\"due\"><h2 id=\"due\">Valor a pagar hoje</h2><dl>");
    if due.discount.is_positive() {
        out.push_str(&format!("<dt>Desconto</dt><dd>−\u{a0}{}</dd>", money(due.discount)));
    }
    if due.charges.is_positive() {
        out.push_str(&format!("<dt>Juros e multa</dt><dd>{}</dd>", money(due.charges)));
    }
    out.push_str(&format!("<div class=\"total\"><dt>Total</dt><dd>{}</dd></div></dl>", money(due.total)));
    if due.days_overdue > 0 {
        let days = if due.days_overdue == 1 { "1 dia".to_owned() } else { format!("{} dias", due.days_overdue) };
        out.push_str(&format!("<p class=\"note\">Vencido há {days}; juros e multa calculados até hoje.</p>"));
    }
    out.push_str("</section><div class=\"pay\">");
    if let Some(card) = card {
        out.push_str(&format!(
            "<section aria-labelledby=\"card-title\"><h2 id=\"card-title\">Cartão de crédito</h2>\
             <p><a class=\"button\" href=\"{}\">Pagar com cartão</a></p></section>",
            escape(card)
        ));
    }
    let line = billet.registered.digitable_line.as_deref().filter(|l| !l.is_empty());
    if billet.status.awaiting_bank() {
        out.push_str(
            "<p class=\"note\">O boleto ainda está sendo registrado no banco: pague agora pelo Pix, \
             ou volte em um dia útil para pagar pela linha digitável.</p>",
        );
    }
    if let Some(line) = line.filter(|_| !billet.status.awaiting_bank()) {
        out.push_str(&format!(
            "<section aria-labelledby=\"line-title\"><h2 id=\"line-title\">Linha digitável</h2>\
             <p class=\"note\">Digite ou cole no aplicativo do seu banco:</p><p id=\"line\" class=\"code\">{}</p>\
             <button type=\"button\" data-copy=\"line\" data-done=\"Linha digitável copiada\">Copiar linha digitável</button>\
             </section>",
            escape(line)
        ));
    }
    let pix = billet.registered.pix_qr_code.as_deref().filter(|p| !p.is_empty());
    if let Some((payload, svg)) = pix.and_then(|p| qr_svg(p).map(|svg| (p, svg))) {
        out.push_str(&format!(
            "<section aria-labelledby=\"pix-title\"><h2 id=\"pix-title\">Pix</h2>{svg}\
             <p class=\"note\">Pix copia e cola:</p><p id=\"pix\" class=\"code\">{}</p>\
             <button type=\"button\" data-copy=\"pix\" data-done=\"Código Pix copiado\">Copiar código Pix</button>\
             </section>",
            escape(payload)
        ));
    }
    out.push_str(&format!(
        "</div><p id=\"status\" role=\"status\" aria-live=\"polite\"></p>\
         <p><a class=\"button\" href=\"{}\" download>Baixar boleto em PDF</a></p>",
        escape(pdf)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billets::model::tests::sample;
    use crate::billings::model::tests as billing_samples;

    fn payable_billet() -> BankBillet {
        let mut billet = sample();
        billet.registered.digitable_line = Some("99990.00005 00000.000000 00000.000000 1 00000000013500".into());
        billet.registered.pix_qr_code = Some("00020126330014br.gov.bcb.pix0111123456789015204000053039865406135.005802BR5905Teste6009SAO PAULO62070503***6304ABCD".into());
        billet.recipient.recipient_document = "12345678000190".into();
        billet.payer.payer_document = "12345678909".into();
        billet.payer.payer_full_name = "Maria <script>alert(1)</script>".into();
        billet
    }

    #[test]
    fn documents_are_masked() {
        assert_eq!(mask_document("12345678909"), "***.456.789-**");
        assert_eq!(mask_document("123.456.789-09"), "***.456.789-**");
        assert_eq!(mask_document("12345678000190"), "**.345.678/0001-**");
        assert_eq!(mask_document(""), "");
        assert_eq!(mask_document("123"), "***");
    }

    #[test]
    fn a_payable_page_shows_the_codes_escaped_and_masked() {
        let billet = payable_billet();
        let due = Due { discount: Money::default(), charges: Money::default(), total: billet.amount, days_overdue: 0 };
        let html = render(&billet, &Standing::Payable(due), "/pay/x/boleto.pdf", None);
        assert!(html.starts_with("<!doctype html><html lang=\"pt-BR\">"));
        assert!(html.contains(billet.registered.digitable_line.as_deref().unwrap()));
        assert!(html.contains(&escape(billet.registered.pix_qr_code.as_deref().unwrap())));
        assert!(html.contains("<svg class=\"qr\""));
        assert!(html.contains("***.456.789-**") && html.contains("**.345.678/0001-**"));
        assert!(!html.contains("12345678909") && !html.contains("<script>alert"), "{html}");
        assert!(html.contains("R$\u{a0}135,00"));
        assert!(html.contains("href=\"/pay/x/boleto.pdf\""));
    }

    #[test]
    fn a_page_no_longer_payable_shows_no_code() {
        let billet = payable_billet();
        for standing in [
            Standing::Paid(Some("2026-11-20".parse().unwrap())),
            Standing::Canceled,
            Standing::Replaced,
            Standing::Discharged,
            Standing::Expired("2026-12-01".parse().unwrap()),
            Standing::Rejected,
            Standing::Registering,
        ] {
            let html = render(&billet, &standing, "/pdf", None);
            assert!(!html.contains("99990.00005") && !html.contains("br.gov.bcb.pix"), "{standing:?}");
            assert!(!html.contains("<svg") && !html.contains("/pdf"), "{standing:?}");
            assert!(html.contains(&escape(&standing.words().1)), "{standing:?}");
        }
        let paid = render(&billet, &Standing::Paid(Some("2026-11-20".parse().unwrap())), "/pdf", None);
        assert!(paid.contains("pago em 20/11/2026"));
    }

    #[test]
    fn the_standing_follows_the_billet_and_its_billing() {
        let today: NaiveDate = "2026-12-05".parse().unwrap();
        let mut billet = payable_billet();
        let mut billing = billing_samples::sample();
        billing.status = BillingStatus::Opened;
        billing.billet_id = Some(billet.id);
        billing.due_date = billet.due_date;
        billing.amount = billet.amount;
        assert!(matches!(Standing::of(&billet, &billing, today), Standing::Payable(_)));
        billet.status = BilletStatus::Canceled;
        assert_eq!(Standing::of(&billet, &billing, today), Standing::Canceled);
        billing.billet_id = Some(crate::values::BilletId::new(99));
        assert_eq!(Standing::of(&billet, &billing, today), Standing::Replaced);
        billet.status = BilletStatus::Remitting;
        assert_eq!(Standing::of(&billet, &billing, today), Standing::Registering);
        // A billet waiting for its remittance with a Pix charge: payable by Pix, not by its line yet.
        let mut with_pix =
            BankBillet { status: BilletStatus::PendingRemittance, pix_psp: Some("s".into()), ..billet.clone() };
        billing.billet_id = Some(with_pix.id);
        let standing = Standing::of(&with_pix, &billing, today);
        assert!(matches!(standing, Standing::Payable(_)), "{standing:?}");
        let html = render(&with_pix, &standing, "/pdf", None);
        assert!(html.contains("br.gov.bcb.pix") && html.contains("pague agora pelo Pix"), "{html}");
        assert!(
            !html.contains(with_pix.registered.digitable_line.as_deref().unwrap()),
            "no line before the bank has it"
        );
        with_pix.status = BilletStatus::Opened;
        assert!(
            render(&with_pix, &standing, "/pdf", None).contains(with_pix.registered.digitable_line.as_deref().unwrap())
        );
        billing.billet_id = Some(crate::values::BilletId::new(99));
        billet.status = BilletStatus::Opened;
        billing.status = BillingStatus::Canceled;
        assert_eq!(Standing::of(&billet, &billing, today), Standing::Canceled);
        billing.status = BillingStatus::Opened;
        billing.instruction_type = Some(crate::values::InstructionType::Devolution);
        billing.instruction_days = 2;
        let late = billet.due_date + chrono::Duration::days(3);
        assert_eq!(
            Standing::of(&billet, &billing, late),
            Standing::Expired(billet.due_date + chrono::Duration::days(2))
        );
        assert!(matches!(Standing::of(&billet, &billing, billet.due_date), Standing::Payable(_)));
    }

    #[test]
    fn the_policy_allows_the_inline_style_and_script_by_digest_only() {
        let policy = content_security_policy();
        assert!(policy.starts_with("default-src 'none'"));
        assert!(policy.contains(&digest(STYLE)) && policy.contains(&digest(SCRIPT)));
        assert!(!policy.contains("unsafe"));
    }
}
