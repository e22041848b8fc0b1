//! What a reminder says: the e-mail (pt-BR, HTML and plain text, rendered by minijinja from
//! `templates/`, autoescaped) and the WhatsApp template message (the Cloud API's JSON, its
//! parameters in the order the approved template names them). Pure functions of [`Letter`].

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::json;

/// What a reminder tells its payer, as of the day it is sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Letter {
    pub beneficiary: String,
    pub payer_name: String,
    /// `vence em 3 dias`, `vence hoje`, `venceu há 2 dias`.
    pub headline: String,
    pub overdue: bool,
    /// What is payable that day, `R$ 1.234,56`.
    pub amount: String,
    /// `30/11/2026`.
    pub due_date: String,
    pub reference: Option<String>,
    pub digitable_line: Option<String>,
    pub pix_code: Option<String>,
    pub pay_url: String,
    pub unsubscribe_url: String,
}

/// How the due date stands `days` after it (negative: before).
pub fn headline(days: i64) -> String {
    match days {
        0 => "vence hoje".to_owned(),
        -1 => "vence amanhã".to_owned(),
        d if d < 0 => format!("vence em {} dias", -d),
        1 => "venceu ontem".to_owned(),
        d => format!("venceu há {d} dias"),
    }
}

/// A rendered e-mail.
#[derive(Clone, Debug, PartialEq)]
pub struct Email {
    pub subject: String,
    pub html: String,
    pub text: String,
}

fn templates() -> &'static minijinja::Environment<'static> {
    static ENVIRONMENT: OnceLock<minijinja::Environment<'static>> = OnceLock::new();
    ENVIRONMENT.get_or_init(|| {
        let mut environment = minijinja::Environment::new();
        // HTML escapes what a record holds as the payer page does (`&`, `<`, `>`, quotes), not `/`
        // as minijinja's default does: links and dates stay as they read.
        environment.set_formatter(|out, state, value| match (state.auto_escape(), value.as_str()) {
            (minijinja::AutoEscape::Html, Some(text)) if !value.is_safe() => {
                out.write_str(&crate::values::text::escape_html(text)).map_err(minijinja::Error::from)
            }
            _ => minijinja::escape_formatter(out, state, value),
        });
        // `.html` autoescapes, `.txt` does not (minijinja's default by extension).
        environment
            .add_template("email.html", include_str!("templates/email.html"))
            .expect("the e-mail's HTML template parses");
        environment
            .add_template("email.txt", include_str!("templates/email.txt"))
            .expect("the e-mail's text template parses");
        environment
    })
}

impl Letter {
    /// The e-mail of this letter.
    pub fn email(&self) -> anyhow::Result<Email> {
        let render = |name: &str| templates().get_template(name).and_then(|template| template.render(self));
        Ok(Email {
            subject: format!("{}: seu boleto {}", self.beneficiary, self.headline),
            html: render("email.html")?,
            text: render("email.txt")?,
        })
    }

    /// The WhatsApp Cloud API message of this letter to `to` (E.164), through the approved
    /// template `template`: body parameters beneficiary, amount, due date, headline; the link's
    /// button takes the payer page's token (the template's URL ends with `/pay/{{1}}`).
    /// `reference` comes back with each status event (`biz_opaque_callback_data`).
    pub fn whatsapp(&self, to: &str, template: &str, token: &str, reference: &str) -> serde_json::Value {
        let text = |value: &str| json!({"type": "text", "text": value});
        json!({
            "messaging_product": "whatsapp",
            "to": to,
            "type": "template",
            "template": {
                "name": template,
                "language": {"code": "pt_BR"},
                "components": [
                    {"type": "body", "parameters": [
                        text(&self.beneficiary), text(&self.amount), text(&self.due_date), text(&self.headline)
                    ]},
                    {"type": "button", "sub_type": "url", "index": "0", "parameters": [text(token)]}
                ]
            },
            "biz_opaque_callback_data": reference
        })
    }
}

/// A Brazilian cell phone in E.164 (`+55` area number), when the contact has a whole one.
pub fn cell_phone(area: Option<&str>, number: Option<&str>) -> Option<String> {
    let digits = |text: Option<&str>| text.map(|t| t.chars().filter(char::is_ascii_digit).collect::<String>());
    let (area, number) = (digits(area)?, digits(number)?);
    (area.len() == 2 && (8..=9).contains(&number.len())).then(|| format!("+55{area}{number}"))
}

/// `name <address>` with the name encoded for a header (RFC 2047) when it is not plain ASCII.
pub fn mailbox(name: &str, address: &str) -> String {
    use base64::Engine as _;
    let name: String = name.chars().filter(|c| !c.is_control() && !matches!(c, '"' | '<' | '>')).collect();
    let name = name.trim();
    if name.is_empty() {
        return address.to_owned();
    }
    match name.is_ascii() {
        true => format!("\"{name}\" <{address}>"),
        false => {
            let encoded = base64::engine::general_purpose::STANDARD.encode(name.as_bytes());
            format!("=?UTF-8?B?{encoded}?= <{address}>")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn letter() -> Letter {
        Letter {
            beneficiary: "Clínica <Vida>".into(),
            payer_name: "Maria Souza".into(),
            headline: headline(-3),
            overdue: false,
            amount: "R$ 1.234,56".into(),
            due_date: "30/11/2026".into(),
            reference: Some("CB-12".into()),
            digitable_line: Some("34191.09008 00000.000001 00000.000000 1 10020000013500".into()),
            pix_code: Some("00020101021226".into()),
            pay_url: "http://127.0.0.1:3000/pay/abc".into(),
            unsubscribe_url: "http://127.0.0.1:3000/pay/abc/lembretes".into(),
        }
    }

    #[test]
    fn the_email_says_what_is_due_and_escapes_what_records_hold() {
        let email = letter().email().unwrap();
        assert_eq!(email.subject, "Clínica <Vida>: seu boleto vence em 3 dias");
        for text in ["R$ 1.234,56", "30/11/2026", "34191.09008 00000.000001", "http://127.0.0.1:3000/pay/abc"] {
            assert!(email.html.contains(text) && email.text.contains(text), "{text}");
        }
        assert!(email.html.contains("Clínica &lt;Vida&gt;") && !email.html.contains("Clínica <Vida>"));
        assert!(email.text.contains("Clínica <Vida>"));
        assert!(email.html.contains("/pay/abc/lembretes"));
        let bare = Letter { digitable_line: None, pix_code: None, reference: None, ..letter() };
        let email = bare.email().unwrap();
        assert!(!email.text.contains("LINHA DIGITÁVEL") && !email.text.contains("PIX COPIA E COLA"));
    }

    #[test]
    fn headlines_phones_and_mailboxes() {
        assert_eq!(
            [headline(-3), headline(-1), headline(0), headline(1), headline(5)],
            ["vence em 3 dias", "vence amanhã", "vence hoje", "venceu ontem", "venceu há 5 dias"]
        );
        assert_eq!(cell_phone(Some("11"), Some("98765-4321")).as_deref(), Some("+5511987654321"));
        assert_eq!(cell_phone(Some("11"), None), None);
        assert_eq!(cell_phone(Some("1"), Some("987654321")), None);
        assert_eq!(mailbox("Clinic", "a@b.c"), "\"Clinic\" <a@b.c>");
        assert!(mailbox("Clínica", "a@b.c").starts_with("=?UTF-8?B?"));
        let message = letter().whatsapp("+5511987654321", "lembrete_cobranca", "tok", "7_12_2026-11-27_whatsapp");
        assert_eq!(message["template"]["components"][0]["parameters"][1]["text"], "R$ 1.234,56");
        assert_eq!(message["biz_opaque_callback_data"], "7_12_2026-11-27_whatsapp");
    }
}
