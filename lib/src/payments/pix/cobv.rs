//! A billing's terms as the API Pix's charge with a due date (`cobv`: the Banco Central's API Pix
//! 2.9.0, its schemas `CobVValor` and `calendario`). Each
//! of the billing's penalty, interest and discounts goes in the standard's modality that computes,
//! on any day, what `billings::compute` computes, so that what the payer's bank asks by Pix is the
//! billing's `amount_payable` that day:
//!
//! | Billing | `cobv` |
//! |---|---|
//! | `penalty_type=percentage` / `fixed_amount` | `multa` modality 2 (percentage) / 1 (fixed) |
//! | `interest_type=percentage`, `interest_period=monthly` / `daily` | `juros` modality 3 (percent a month, calendar days: pro rata, a month of 30 days) / 2 (percent a day) |
//! | `interest_type=fixed_amount`, `daily` | `juros` modality 1 (a value a calendar day) |
//! | `interest_type=fixed_amount`, `monthly` | `juros` modality 1 with a thirtieth of it, when that is whole cents; refused otherwise |
//! | `cancel_penalty=true` | neither `multa` nor `juros` |
//! | `discount` (and `discount2`), both `fixed_amount` / both `percentage` | `desconto` modality 1 / 2, one `descontoDataFixa` each: the due date less its antecedence |
//! | `discount_type` and `discount_type2` differ | refused: the standard gives the discounts one modality |
//! | a value with more than two decimals | refused: the standard's values have two |
//!
//! The charge stays payable after its due date until the billing's `return_date` (devolution:
//! `instruction_days`), otherwise [`DAYS_PAYABLE_AFTER_DUE`] days, the standard's own default.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

use crate::billings::compute::Terms;
use crate::refusal::{Code, Problem};
use crate::values::{InterestPeriod, ValueKind};

/// Days a charge stays payable after its due date when the billing sets no return date: the API
/// Pix's default for `validadeAposVencimento`.
pub const DAYS_PAYABLE_AFTER_DUE: i64 = 30;

/// `calendario` of a `cobv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calendario {
    #[serde(rename = "dataDeVencimento")]
    pub due: NaiveDate,
    #[serde(rename = "validadeAposVencimento")]
    pub payable_after: i64,
}

/// `valor` of a `cobv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Valor {
    pub original: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multa: Option<Modal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub juros: Option<Modal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desconto: Option<Desconto>,
}

/// A value and the modality that reads it (`multa`, `juros`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Modal {
    pub modalidade: u8,
    #[serde(rename = "valorPerc")]
    pub value: String,
}

/// Discounts until fixed dates.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Desconto {
    pub modalidade: u8,
    #[serde(rename = "descontoDataFixa")]
    pub until: Vec<Until>,
}

/// A discount while paid on or before `data`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Until {
    pub data: NaiveDate,
    #[serde(rename = "valorPerc")]
    pub value: String,
}

/// The charge's `calendario`: due on the billing's due date, payable until its return date.
pub fn calendario(due: NaiveDate, return_date: Option<NaiveDate>) -> Calendario {
    let payable_after = return_date.map_or(DAYS_PAYABLE_AFTER_DUE, |last| (last - due).num_days().max(0));
    Calendario { due, payable_after }
}

/// The charge's `valor` for a billing's terms, or every reason it has none (each naming the
/// billing's field, for a 422's `details`).
pub fn valor(terms: &Terms) -> Result<Valor, Vec<Problem>> {
    let mut problems = Vec::new();
    let original = two(&mut problems, "amount", terms.amount);
    let charged = !terms.cancel_penalty;
    let multa = terms.penalty.filter(|p| charged && p.value > Decimal::ZERO).map(|p| Modal {
        modalidade: match p.kind {
            ValueKind::FixedAmount => 1,
            ValueKind::Percentage => 2,
        },
        value: two(&mut problems, "penalty", p.value),
    });
    let mut juros = None;
    if let Some(i) = terms.interest.filter(|i| charged && i.value > Decimal::ZERO) {
        juros = match (i.kind, i.period) {
            (ValueKind::Percentage, InterestPeriod::Monthly) => {
                Some(Modal { modalidade: 3, value: two(&mut problems, "interest", i.value) })
            }
            (ValueKind::Percentage, InterestPeriod::Daily) => {
                Some(Modal { modalidade: 2, value: two(&mut problems, "interest", i.value) })
            }
            (ValueKind::FixedAmount, InterestPeriod::Daily) => {
                Some(Modal { modalidade: 1, value: two(&mut problems, "interest", i.value) })
            }
            (ValueKind::FixedAmount, InterestPeriod::Monthly) => {
                let per_day = i.value / Decimal::from(30);
                match two_places(per_day) {
                    Some(value) => Some(Modal { modalidade: 1, value }),
                    None => {
                        let message = format!(
                            "O Pix cobra juros em valor por dia: {} ao mês não dá centavos inteiros por dia (um trigésimo); use um valor múltiplo de 0,30 ou juros ao dia",
                            i.value
                        );
                        problems.push(Problem::at("interest", Code::Invalid, message));
                        None
                    }
                }
            }
        };
    }
    let discounts: Vec<_> =
        [terms.discount, terms.discount2].into_iter().flatten().filter(|d| d.value > Decimal::ZERO).collect();
    let desconto = match discounts.as_slice() {
        [] => None,
        [first, rest @ ..] if rest.iter().any(|d| d.kind != first.kind) => {
            let message = "O Pix dá aos descontos um só tipo: os dois percentuais ou os dois em valor";
            problems.push(Problem::at("discount_type2", Code::Invalid, message));
            None
        }
        [first, ..] => Some(Desconto {
            modalidade: match first.kind {
                ValueKind::FixedAmount => 1,
                ValueKind::Percentage => 2,
            },
            until: discounts
                .iter()
                .zip(["discount", "discount2"])
                .map(|(d, field)| Until {
                    data: terms.due_date - chrono::Duration::days(d.antecedence_days),
                    value: two(&mut problems, field, d.value),
                })
                .collect(),
        }),
    };
    match problems.is_empty() {
        true => Ok(Valor { original, multa, juros, desconto }),
        false => Err(problems),
    }
}

/// `value` with two decimals, or a problem of `field` kept in `problems` (and nothing).
fn two(problems: &mut Vec<Problem>, field: &str, value: Decimal) -> String {
    two_places(value).unwrap_or_else(|| {
        let message = format!("O Pix aceita valores com até duas casas decimais: {field} {value}");
        problems.push(Problem::at(field, Code::Invalid, message));
        String::new()
    })
}

/// `value` with exactly two decimals, as the standard writes values (`\d{1,10}\.\d{2}`); none when
/// it has more.
fn two_places(value: Decimal) -> Option<String> {
    let normal = value.normalize();
    (normal.scale() <= 2 && normal >= Decimal::ZERO && normal < Decimal::from(10_000_000_000_i64))
        .then(|| format!("{:.2}", normal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billings::compute::{compute, Discount, Interest, Penalty};
    use crate::values::money::cents;
    use crate::values::BillingStatus;
    use serde_json::json;

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    fn due() -> NaiveDate {
        NaiveDate::from_ymd_opt(2030, 3, 15).unwrap()
    }

    fn terms() -> Terms {
        Terms {
            status: BillingStatus::Opened,
            amount: d("250.00"),
            due_date: due(),
            discount: None,
            discount2: None,
            penalty: None,
            interest: None,
            cancel_penalty: false,
        }
    }

    fn penalty(kind: ValueKind, value: &str) -> Option<Penalty> {
        Some(Penalty { kind, value: d(value) })
    }

    fn interest(kind: ValueKind, period: InterestPeriod, value: &str) -> Option<Interest> {
        Some(Interest { kind, period, value: d(value) })
    }

    fn discount(kind: ValueKind, value: &str, antecedence_days: i64) -> Option<Discount> {
        Some(Discount { kind, value: d(value), antecedence_days })
    }

    use InterestPeriod::{Daily, Monthly};
    use ValueKind::{FixedAmount as Fixed, Percentage as Pct};

    /// A case: what it is, the terms, and the `valor` sent or the fields refused.
    type Row = (&'static str, Terms, Result<serde_json::Value, Vec<&'static str>>);

    /// Every combination the billing's fields allow is mapped (the `valor` sent) or refused (the
    /// fields named): the rows of one group of fields, each checked.
    fn check(rows: Vec<Row>) {
        for (what, terms, expected) in rows {
            let got = valor(&terms)
                .map(|v| serde_json::to_value(v).unwrap())
                .map_err(|problems| problems.iter().map(|p| p.field.clone().unwrap_or_default()).collect::<Vec<_>>());
            let expected = expected.map_err(|fields| fields.into_iter().map(str::to_owned).collect::<Vec<_>>());
            assert_eq!(got, expected, "{what}");
        }
    }

    #[test]
    fn the_amount_the_penalty_and_the_interest_are_mapped_or_refused() {
        check(vec![
            ("nothing but the amount", terms(), Ok(json!({"original": "250.00"}))),
            (
                "penalty as a percentage",
                Terms { penalty: penalty(Pct, "2"), ..terms() },
                Ok(json!({"original": "250.00", "multa": {"modalidade": 2, "valorPerc": "2.00"}})),
            ),
            (
                "penalty as a value",
                Terms { penalty: penalty(Fixed, "5.5"), ..terms() },
                Ok(json!({"original": "250.00", "multa": {"modalidade": 1, "valorPerc": "5.50"}})),
            ),
            ("penalty with three decimals", Terms { penalty: penalty(Pct, "2.125"), ..terms() }, Err(vec!["penalty"])),
            (
                "interest, percent a month",
                Terms { interest: interest(Pct, Monthly, "1"), ..terms() },
                Ok(json!({"original": "250.00", "juros": {"modalidade": 3, "valorPerc": "1.00"}})),
            ),
            (
                "interest, percent a day",
                Terms { interest: interest(Pct, Daily, "0.03"), ..terms() },
                Ok(json!({"original": "250.00", "juros": {"modalidade": 2, "valorPerc": "0.03"}})),
            ),
            (
                "interest, percent a day, three decimals",
                Terms { interest: interest(Pct, Daily, "0.033"), ..terms() },
                Err(vec!["interest"]),
            ),
            (
                "interest, a value a day",
                Terms { interest: interest(Fixed, Daily, "0.25"), ..terms() },
                Ok(json!({"original": "250.00", "juros": {"modalidade": 1, "valorPerc": "0.25"}})),
            ),
            (
                "interest, a value a month in whole cents a day",
                Terms { interest: interest(Fixed, Monthly, "3.00"), ..terms() },
                Ok(json!({"original": "250.00", "juros": {"modalidade": 1, "valorPerc": "0.10"}})),
            ),
            (
                "interest, a value a month not in whole cents a day",
                Terms { interest: interest(Fixed, Monthly, "10"), ..terms() },
                Err(vec!["interest"]),
            ),
            (
                "penalty and interest waived",
                Terms {
                    penalty: penalty(Pct, "2"),
                    interest: interest(Pct, Monthly, "1"),
                    cancel_penalty: true,
                    ..terms()
                },
                Ok(json!({"original": "250.00"})),
            ),
        ]);
    }

    #[test]
    fn every_discount_is_mapped_or_refused() {
        check(vec![
            (
                "one discount as a value, until 5 days before",
                Terms { discount: discount(Fixed, "10", 5), ..terms() },
                Ok(
                    json!({"original": "250.00", "desconto": {"modalidade": 1, "descontoDataFixa": [{"data": "2030-03-10", "valorPerc": "10.00"}]}}),
                ),
            ),
            (
                "two discounts as percentages, the second until the due date",
                Terms { discount: discount(Pct, "5", 10), discount2: discount(Pct, "2", 0), ..terms() },
                Ok(json!({"original": "250.00", "desconto": {"modalidade": 2, "descontoDataFixa": [
                    {"data": "2030-03-05", "valorPerc": "5.00"}, {"data": "2030-03-15", "valorPerc": "2.00"}
                ]}})),
            ),
            (
                "two discounts of two kinds",
                Terms { discount: discount(Pct, "5", 10), discount2: discount(Fixed, "2", 0), ..terms() },
                Err(vec!["discount_type2"]),
            ),
            (
                "a zero discount is none",
                Terms { discount: discount(Fixed, "0", 3), ..terms() },
                Ok(json!({"original": "250.00"})),
            ),
        ]);
    }

    #[test]
    fn terms_together_are_mapped_or_refused_at_once() {
        check(vec![
            (
                "everything at once",
                Terms {
                    penalty: penalty(Fixed, "7"),
                    interest: interest(Pct, Daily, "0.1"),
                    discount: discount(Fixed, "20", 3),
                    ..terms()
                },
                Ok(json!({
                    "original": "250.00",
                    "multa": {"modalidade": 1, "valorPerc": "7.00"},
                    "juros": {"modalidade": 2, "valorPerc": "0.10"},
                    "desconto": {"modalidade": 1, "descontoDataFixa": [{"data": "2030-03-12", "valorPerc": "20.00"}]}
                })),
            ),
            (
                "every refusal named at once",
                Terms {
                    penalty: penalty(Fixed, "1.005"),
                    interest: interest(Fixed, Monthly, "1"),
                    discount: discount(Pct, "5", 10),
                    discount2: discount(Fixed, "2", 0),
                    ..terms()
                },
                Err(vec!["penalty", "interest", "discount_type2"]),
            ),
        ]);
    }

    /// What a PSP asks on `day` for a `cobv` (the standard's rules for each modality, written
    /// apart from `billings::compute`): the discount of the first date not yet past, or after the
    /// due date the penalty once and the interest per calendar day, each rounded to cents.
    fn asked(valor: &Valor, due: NaiveDate, day: NaiveDate) -> Decimal {
        let original = d(&valor.original);
        let of = |modal: u8, value: Decimal, percent: u8| {
            if modal == percent {
                cents(original * value / Decimal::ONE_HUNDRED)
            } else {
                value
            }
        };
        let late = (day - due).num_days();
        if late <= 0 {
            let discount = valor.desconto.as_ref().and_then(|desconto| {
                let until = desconto.until.iter().find(|u| day <= u.data)?;
                Some(of(desconto.modalidade, d(&until.value), 2).min(original))
            });
            return original - discount.unwrap_or_default();
        }
        let multa = valor.multa.as_ref().map(|m| of(m.modalidade, d(&m.value), 2)).unwrap_or_default();
        let juros = valor.juros.as_ref().map(|j| {
            let days = Decimal::from(late);
            let per_day = match j.modalidade {
                1 => d(&j.value),
                2 => original * d(&j.value) / Decimal::ONE_HUNDRED,
                3 => original * d(&j.value) / Decimal::ONE_HUNDRED / Decimal::from(30),
                other => panic!("modality {other} is not one the mapping uses"),
            };
            cents(per_day * days)
        });
        original + multa + juros.unwrap_or_default()
    }

    /// On every day from 20 before the due date to 40 after, what the PSP asks by the mapped
    /// charge is the billing's `amount_payable` that day.
    #[test]
    fn the_charge_asks_what_the_billing_computes_on_every_day() {
        let cases = [
            Terms { penalty: penalty(Pct, "2"), interest: interest(Pct, Monthly, "1"), ..terms() },
            Terms { penalty: penalty(Fixed, "3.33"), interest: interest(Pct, Daily, "0.07"), ..terms() },
            Terms { interest: interest(Fixed, Daily, "0.19"), ..terms() },
            Terms { interest: interest(Fixed, Monthly, "4.50"), ..terms() },
            Terms {
                amount: d("99.99"),
                penalty: penalty(Pct, "2"),
                interest: interest(Pct, Monthly, "2.99"),
                ..terms()
            },
            Terms {
                discount: discount(Pct, "7.5", 10),
                discount2: discount(Pct, "2.5", 0),
                penalty: penalty(Pct, "2"),
                ..terms()
            },
            Terms { discount: discount(Fixed, "30", 15), discount2: discount(Fixed, "12.34", 2), ..terms() },
            Terms {
                penalty: penalty(Pct, "2"),
                interest: interest(Pct, Monthly, "1"),
                cancel_penalty: true,
                ..terms()
            },
        ];
        for terms in cases {
            let valor = valor(&terms).expect("mapped");
            for offset in -20..=40 {
                let day = due() + chrono::Duration::days(offset);
                let billing = compute(&terms, day).amount_payable;
                assert_eq!(asked(&valor, due(), day), billing, "{terms:?} on {day}");
            }
        }
    }

    #[test]
    fn the_charge_is_payable_until_the_return_date_or_thirty_days() {
        let returned = NaiveDate::from_ymd_opt(2030, 3, 25).unwrap();
        assert_eq!(calendario(due(), Some(returned)).payable_after, 10);
        assert_eq!(calendario(due(), None).payable_after, DAYS_PAYABLE_AFTER_DUE);
        let sent = serde_json::to_value(calendario(due(), None)).unwrap();
        assert_eq!(sent, json!({"dataDeVencimento": "2030-03-15", "validadeAposVencimento": 30}));
    }
}
