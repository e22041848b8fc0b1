//! A carnê's instalments on the page of any of them: each one's number, due date, amount and
//! state, with a link to the page of each other one still to pay.

use chrono::NaiveDate;

use super::html::{escape, money};
use crate::billets::printing::text::date;
use crate::values::Money;

/// One instalment of the booklet as the page lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Instalment {
    pub number: i64,
    pub of: i64,
    pub due: NaiveDate,
    pub amount: Money,
    /// In words: "Paga", "Em aberto", "Vencida", "Cancelada"…
    pub state: String,
    /// The page of this instalment, when it is another one still to pay.
    pub link: Option<String>,
    /// The instalment this page is of.
    pub current: bool,
}

/// The list, or nothing for a billet that is no instalment.
pub(super) fn section(instalments: &[Instalment]) -> String {
    if instalments.is_empty() {
        return String::new();
    }
    let mut out = String::from("<section aria-labelledby=\"booklet\"><h2 id=\"booklet\">Parcelas do carnê</h2><ol>");
    for i in instalments {
        let line = format!(
            "Parcela {} de {} – vence {} – {} – {}",
            i.number,
            i.of,
            date(i.due),
            money(i.amount),
            escape(&i.state)
        );
        out.push_str(&match (&i.link, i.current) {
            (_, true) => format!("<li aria-current=\"page\"><strong>{line} (esta)</strong></li>"),
            (Some(link), false) => format!("<li>{line} – <a href=\"{}\">abrir</a></li>", escape(link)),
            (None, false) => format!("<li>{line}</li>"),
        });
    }
    out.push_str("</ol></section>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_marks_this_one_and_links_the_others_to_pay() {
        let line = |number: i64, state: &str, link: Option<&str>, current: bool| Instalment {
            number,
            of: 3,
            due: "2027-01-11".parse().unwrap(),
            amount: Money::parse("33.34").unwrap(),
            state: state.to_owned(),
            link: link.map(str::to_owned),
            current,
        };
        let html = section(&[
            line(1, "Paga", None, false),
            line(2, "Em aberto", None, true),
            line(3, "Em aberto", Some("/pay/abc"), false),
        ]);
        assert!(html.contains("Parcela 1 de 3 – vence 11/01/2027 – R$\u{a0}33,34 – Paga</li>"), "{html}");
        assert!(html.contains("aria-current=\"page\"><strong>Parcela 2 de 3"), "{html}");
        assert!(html.contains("<a href=\"/pay/abc\">abrir</a>"), "{html}");
        assert_eq!(section(&[]), "");
    }
}
