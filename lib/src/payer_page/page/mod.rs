//! The payer's page as HTML: pure functions of what the billet and its billing say today.
//!
//! One document, pt-BR, mobile first, no framework and no request beyond itself: the style and the
//! copy script are inline and allowed by their SHA-256 in the Content-Security-Policy
//! ([`content_security_policy`]), the Pix QR code is inline SVG. Every text from a record is
//! escaped. A billet that can no longer be paid shows its state in words and no payable code.
//!
//! This file draws the billet's page; where the billet stands is [`Standing`] (`billings`), the pieces every
//! page shares are in `html`, the card checkout, a carnê's instalments and the reminders page in
//! their own files.

mod automatic;
mod booklet;
mod card;
mod html;
mod reminders;
mod standing;

use std::sync::OnceLock;

use crate::billets::model::BankBillet;
use crate::billets::printing::pix_qr::{self, QUIET_ZONE};
use crate::billets::printing::text::date;
use html::{digest, money, STYLE};

pub use crate::billings::standing::{Due, Standing};
pub use automatic::pix_automatic;
pub use booklet::Instalment;
pub use card::{card, card_policy, save_card, save_card_policy};
pub use html::escape;
pub use reminders::{reminders, reminders_policy};

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

const SCRIPT: &str = "\
document.querySelectorAll('button[data-copy]').forEach(function(b){\
b.addEventListener('click',function(){\
var s=document.getElementById('status'),f=document.getElementById(b.getAttribute('data-copy'));\
function done(ok){s.textContent=ok?b.getAttribute('data-done'):'Não foi possível copiar: selecione o código e copie.';}\
function old(){var r=document.createRange(),l=getSelection();r.selectNodeContents(f);l.removeAllRanges();l.addRange(r);\
try{done(document.execCommand('copy'));}catch(e){done(false);}}\
if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(f.textContent).then(function(){done(true);},old);}else{old();}\
});});";

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
    render_in_booklet(billet, standing, pdf, card, &[], NextOnes::default())
}

/// What a schedule's billing offers for the next ones: the pages where the payer saves a card
/// and authorizes Pix Automático.
#[derive(Clone, Copy, Debug, Default)]
pub struct NextOnes<'a> {
    pub save_card: Option<&'a str>,
    pub pix_automatic: Option<&'a str>,
}

/// [`render`] for an instalment of a carnê (the booklet's instalments listed below) or a billing
/// of a schedule (`next`: what it offers for the next ones).
pub fn render_in_booklet(
    billet: &BankBillet,
    standing: &Standing,
    pdf: &str,
    card: Option<&str>,
    booklet: &[Instalment],
    next: NextOnes<'_>,
) -> String {
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
        Standing::Payable(due) => body.push_str(&payable(billet, due, pdf, card, next)),
        _ => body.push_str(&format!(
            "<section aria-labelledby=\"state\"><h2 id=\"state\">Situação</h2><p class=\"state {class}\">{}</p>\
             </section>",
            escape(&words)
        )),
    }
    body.push_str(&booklet::section(booklet));
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
fn payable(billet: &BankBillet, due: &Due, pdf: &str, card: Option<&str>, next: NextOnes<'_>) -> String {
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
        let save = next.save_card.map_or_else(String::new, |path| {
            format!("<p><a href=\"{}\">Salvar um cartão para as próximas cobranças</a></p>", escape(path))
        });
        out.push_str(&format!(
            "<section aria-labelledby=\"card-title\"><h2 id=\"card-title\">Cartão de crédito</h2>\
             <p><a class=\"button\" href=\"{}\">Pagar com cartão</a></p>{save}</section>",
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
             <button type=\"button\" data-copy=\"pix\" data-done=\"Código Pix copiado\">Copiar código Pix</button>{}\
             </section>",
            escape(payload),
            next.pix_automatic.map_or_else(String::new, |path| format!(
                "<p><a href=\"{}\">Autorizar o Pix Automático para as próximas cobranças</a></p>",
                escape(path)
            )),
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
    use crate::values::Money;

    pub(super) fn payable_billet() -> BankBillet {
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
    fn the_policy_allows_the_inline_style_and_script_by_digest_only() {
        let policy = content_security_policy();
        assert!(policy.starts_with("default-src 'none'"));
        assert!(policy.contains(&digest(STYLE)) && policy.contains(&digest(SCRIPT)));
        assert!(!policy.contains("unsafe"));
    }
}
