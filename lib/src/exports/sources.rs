//! What an export reads, by key and from a cursor, and how each row is written: the payments of
//! one rows partition (`payments::rows`, the filters of `GET /v1/payments`), or the billings of one
//! posting partition (every billing of a type, or those of one status, bank rule, category or
//! contact: each filter names one partition, read shard after shard in id order).

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::csv;
use super::Kind;
use crate::billings::model::Billing;
use crate::payments::rows::{self, Order, Partition, Query};
use crate::payments::Entry;
use crate::refusal::{Problem, Refusal};
use crate::store::{keys, postings, records, shards, KeyRange, Sort, Store};
use crate::values::{AccountId, BillingId, BillingStatus, BillingType};

/// Where an export's rows come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Payments {
        partition: Partition,
        from: Option<NaiveDate>,
        to: Option<NaiveDate>,
    },
    /// The billings of a type, or of one filter value's postings (`facet`), and the name of the
    /// count the type's counter keeps of them (`None`: counted by none).
    Billings {
        billing_type: BillingType,
        facet: Option<String>,
        counted: Option<String>,
    },
}

const PAYMENT_FILTERS: [&str; 6] = ["paid_from", "paid_to", "credited_from", "credited_to", "channel", "status"];
const BILLING_FILTERS: [&str; 5] = ["billing_type", "status", "bank_rule_id", "bill_category_id", "contact_id"];

impl Source {
    /// The source `filters` ask for, or every problem with them.
    pub fn of(kind: Kind, filters: &BTreeMap<String, String>) -> Result<Source, Vec<Problem>> {
        let known: &[&str] = match kind {
            Kind::Payments => &PAYMENT_FILTERS,
            Kind::Billings => &BILLING_FILTERS,
        };
        let mut errors: Vec<Problem> = filters
            .keys()
            .filter(|name| !known.contains(&name.as_str()))
            .map(|name| {
                Problem::invalid(
                    format!("filters.{name}"),
                    format!("filtro desconhecido: {name} (aceitos: {})", known.join(", ")),
                )
            })
            .collect();
        let source = match kind {
            Kind::Payments => Self::payments(filters, &mut errors),
            Kind::Billings => Self::billings(filters, &mut errors),
        };
        if errors.is_empty() {
            Ok(source)
        } else {
            Err(errors)
        }
    }

    fn payments(filters: &BTreeMap<String, String>, errors: &mut Vec<Problem>) -> Source {
        match rows::asked(|name| filters.get(name).map(String::as_str), |name| format!("filters.{name}")) {
            Ok(rows::Asked { partition, from, to }) => Source::Payments { partition, from, to },
            Err(problems) => {
                errors.extend(problems);
                Source::Payments {
                    partition: Partition { order: Order::Paid, channel: None, status: None },
                    from: None,
                    to: None,
                }
            }
        }
    }

    fn billings(filters: &BTreeMap<String, String>, errors: &mut Vec<Problem>) -> Source {
        let billing_type = match filters.get("billing_type").map(|t| t.trim()) {
            None => BillingType::Billing,
            Some(text) => BillingType::parse(text).unwrap_or_else(|| {
                errors.push(Problem::invalid(
                    "filters.billing_type",
                    format!("billing_type inválido (aceitos: {})", BillingType::list()),
                ));
                BillingType::Billing
            }),
        };
        let mut facets = Vec::new();
        if let Some(text) = filters.get("status") {
            match BillingStatus::parse(text.trim()) {
                Some(status) => facets.push((
                    keys::billing::billing_facet::status(status),
                    Some(keys::billing::BillingTally::Status(status).name()),
                )),
                None => errors.push(Problem::invalid(
                    "filters.status",
                    format!("status inválido (aceitos: {})", BillingStatus::list()),
                )),
            }
        }
        let mut id = |name: &str, facet: fn(i64) -> String, tally: fn(i64) -> Option<String>| {
            if let Some(text) = filters.get(name) {
                match text.trim().parse::<i64>() {
                    Ok(id) if id > 0 => facets.push((facet(id), tally(id))),
                    _ => errors.push(Problem::invalid(format!("filters.{name}"), format!("{name} inválido"))),
                }
            }
        };
        use crate::values::{BankRuleId, BillCategoryId, ContactId};
        use keys::billing::{billing_facet, BillingTally};
        id(
            "bank_rule_id",
            |id| billing_facet::bank_rule(BankRuleId::new(id)),
            |id| Some(BillingTally::Rule(BankRuleId::new(id)).name()),
        );
        id(
            "bill_category_id",
            |id| billing_facet::category(BillCategoryId::new(id)),
            |id| Some(BillingTally::Category(BillCategoryId::new(id)).name()),
        );
        id("contact_id", |id| billing_facet::contact(ContactId::new(id)), |_| None);
        if facets.len() > 1 {
            errors.push(Problem::invalid(
                "filters",
                "Uma exportação de cobranças filtra por um de status, bank_rule_id, bill_category_id ou contact_id",
            ));
        }
        match facets.pop() {
            None => {
                Source::Billings { billing_type, facet: None, counted: Some(keys::counter::COUNT_ATTRIBUTE.to_owned()) }
            }
            Some((facet, counted)) => Source::Billings { billing_type, facet: Some(facet), counted },
        }
    }

    /// How many rows it holds, when a counter knows: the payments' day counts (by the day paid,
    /// any status), the billings' type counter.
    pub async fn total(&self, store: &Store, account: AccountId) -> Result<Option<i64>, Refusal> {
        match self {
            Source::Payments { partition: Partition { order: Order::Paid, channel, status: None }, from, to } => {
                if from.zip(*to).is_some_and(|(from, to)| from > to) {
                    return Ok(Some(0));
                }
                let counter = keys::payment::statement_counter(account);
                let days = shards::days(store, &counter, *from, *to).await?;
                let wanted = |name: &str| match keys::payment::read_statement_count(name) {
                    Some(("n", counted, None)) => channel.is_none_or(|c| c.as_str() == counted),
                    _ => false,
                };
                Ok(Some(
                    days.values()
                        .flat_map(|counts| counts.iter())
                        .filter(|(name, _)| wanted(name))
                        .map(|(_, n)| n)
                        .sum(),
                ))
            }
            Source::Payments { .. } => Ok(None),
            Source::Billings { billing_type, counted: Some(name), .. } => {
                let counter = keys::billing::billing_count_shards(account, billing_type.as_str());
                Ok(Some(shards::sum_of(store, counter, name).await?.max(0)))
            }
            Source::Billings { counted: None, .. } => Ok(None),
        }
    }

    /// The header row.
    pub fn header(&self) -> String {
        let names: &[&str] = match self {
            Source::Payments { .. } => &PAYMENT_COLUMNS,
            Source::Billings { .. } => &BILLING_COLUMNS,
        };
        csv::row(&names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
    }

    /// Up to about `limit` rows after `cursor` (none: from the start), written, and the cursor
    /// after them (none: nothing follows).
    pub async fn read(
        &self,
        store: &Store,
        account: AccountId,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<String>, Option<String>), Refusal> {
        match self {
            Source::Payments { partition, from, to } => {
                let query =
                    Query { partition: *partition, from: *from, to: *to, after: cursor.map(str::to_owned), limit };
                let listed = rows::list(store, account, &query).await?;
                Ok((listed.payments.iter().map(payment_row).collect(), listed.next))
            }
            Source::Billings { billing_type, facet, .. } => {
                let shards = keys::billing::billing_posting_shards(account, billing_type.as_str(), facet.as_deref());
                billings_after(store, account, &shards, cursor, limit).await
            }
        }
    }
}

/// A billings cursor: the shard being read and the sort key read last in it (`<shard>|<sk>`).
fn read_cursor(cursor: Option<&str>) -> (usize, Option<String>) {
    let Some((shard, sk)) = cursor.and_then(|c| c.split_once('|')) else { return (0, None) };
    (shard.parse().unwrap_or(0), Some(sk.to_owned()).filter(|sk| !sk.is_empty()))
}

async fn billings_after(
    store: &Store,
    account: AccountId,
    shards: &[String],
    cursor: Option<&str>,
    limit: usize,
) -> Result<(Vec<String>, Option<String>), Refusal> {
    let (mut shard, mut after) = read_cursor(cursor);
    while shard < shards.len() {
        let sort = after.clone().map_or(Sort::All, Sort::From);
        let range = KeyRange::listing(shards[shard].clone(), sort, true);
        let items = store.items_in(&range, 0, limit + 2).await?;
        let keys: Vec<String> = items
            .iter()
            .filter_map(|item| crate::store::item::text(item, "sk").map(str::to_owned))
            .filter(|sk| Some(sk) != after.as_ref())
            .collect();
        if keys.is_empty() {
            (shard, after) = (shard + 1, None);
            continue;
        }
        let more = keys.len() > limit;
        let page: Vec<&String> = keys.iter().take(limit).collect();
        let ids: Vec<BillingId> = page.iter().filter_map(|sk| postings::id_at_end(sk)).map(BillingId::new).collect();
        let billings = records::find_many::<Billing>(store, account, &ids).await?;
        let rows = billings.iter().map(billing_row).collect();
        let last = page.last().map(|sk| (*sk).clone()).unwrap_or_default();
        let next = match (more, shard + 1 < shards.len()) {
            (true, _) => Some(format!("{shard}|{last}")),
            (false, true) => Some(format!("{}|", shard + 1)),
            (false, false) => None,
        };
        return Ok((rows, next));
    }
    Ok((Vec::new(), None))
}

const PAYMENT_COLUMNS: [&str; 17] = [
    "id",
    "cobranca",
    "boleto",
    "canal",
    "id_no_provedor",
    "situacao",
    "pago_em",
    "credito_em",
    "valor_pago",
    "valor_original",
    "juros_e_multa",
    "desconto",
    "tarifa",
    "valor_liquido",
    "valor_estornado",
    "motivo",
    "registrado_em",
];

fn payment_row(entry: &Entry) -> String {
    csv::row(&[
        csv::text(&entry.id()),
        entry.billing_id.to_string(),
        csv::number(entry.billet_id.map(|b| b.get())),
        entry.channel.as_str().to_owned(),
        csv::text(&entry.provider_id),
        entry.status().as_str().to_owned(),
        csv::date(Some(entry.paid_on)),
        csv::date(entry.credit_on),
        csv::money(entry.amount),
        csv::money(entry.original_amount),
        csv::money(entry.interest),
        csv::money(entry.discount),
        csv::money(entry.fee),
        csv::money(entry.net_amount),
        csv::money(entry.refunded),
        csv::text(&entry.note),
        csv::instant(entry.recorded_at),
    ])
}

const BILLING_COLUMNS: [&str; 17] = [
    "id",
    "tipo",
    "situacao",
    "contato",
    "seu_codigo",
    "vencimento",
    "valor",
    "valor_pago",
    "pago_em",
    "recebido_por",
    "tarifa",
    "desconto_pago",
    "juros_e_multa_pagos",
    "regra",
    "categoria",
    "criada_em",
    "competencia",
];

fn billing_row(billing: &Billing) -> String {
    let paid = billing.gw_payment_date.is_some();
    let paid_amount = billing.gw_gross_amount - billing.gw_discount_amount + billing.gw_extra_amount;
    csv::row(&[
        billing.id.to_string(),
        billing.billing_type.as_str().to_owned(),
        billing.status.as_str().to_owned(),
        csv::number(billing.contact_id.map(|c| c.get())),
        csv::text(billing.your_code.as_deref().unwrap_or_default()),
        csv::date(Some(billing.due_date)),
        csv::money(billing.amount),
        if paid { csv::money(paid_amount) } else { String::new() },
        csv::date(billing.gw_payment_date),
        csv::text(billing.gw_received_with.as_deref().unwrap_or_default()),
        csv::money(billing.gw_fee_amount),
        csv::money(billing.gw_discount_amount),
        csv::money(billing.gw_extra_amount),
        csv::number(billing.bank_rule_id.map(|r| r.get())),
        csv::number(billing.bill_category_id.map(|c| c.get())),
        csv::instant(billing.created_at),
        csv::text(billing.competence.as_deref().unwrap_or_default()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filters(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn filters_name_one_partition_or_say_what_is_wrong() {
        let source = Source::of(Kind::Payments, &filters(&[("channel", "pix"), ("paid_from", "2026-11-01")])).unwrap();
        assert!(matches!(
            source,
            Source::Payments { partition: Partition { channel: Some(_), .. }, from: Some(_), .. }
        ));
        let source = Source::of(Kind::Billings, &filters(&[("status", "paid")])).unwrap();
        assert_eq!(
            source,
            Source::Billings {
                billing_type: BillingType::Billing,
                facet: Some("Spaid".into()),
                counted: Some("Spaid".into())
            }
        );
        let errors = Source::of(Kind::Billings, &filters(&[("status", "paid"), ("contact_id", "x"), ("page", "2")]))
            .unwrap_err();
        let fields: Vec<_> = errors.iter().map(|p| p.field.clone().unwrap_or_default()).collect();
        assert_eq!(fields, ["filters.page", "filters.contact_id"]);
        let errors = Source::of(Kind::Billings, &filters(&[("status", "paid"), ("contact_id", "3")])).unwrap_err();
        assert_eq!(errors[0].field.as_deref(), Some("filters"));
        let errors = Source::of(Kind::Payments, &filters(&[("channel", "boleto"), ("paid_to", "ontem")])).unwrap_err();
        let fields: Vec<_> = errors.iter().map(|p| p.field.clone().unwrap_or_default()).collect();
        assert_eq!(fields, ["filters.paid_to", "filters.channel"]);
    }

    #[test]
    fn a_billings_cursor_names_a_shard_and_a_key() {
        assert_eq!(read_cursor(None), (0, None));
        assert_eq!(read_cursor(Some("2|")), (2, None));
        assert_eq!(read_cursor(Some("1|BILLING#0000000042")), (1, Some("BILLING#0000000042".into())));
    }
}
