//! Customers written straight to the table in bulk (what a bulk billing expands, what lists and
//! searches find), and valid CPFs to give them.

use billing_api::accounts::AccountId;
use billing_api::store::Store;

/// `count` active customers of `account` holding `tag` (each with a CPF and an address, so that the
/// bank registers their billets), written straight to the table in batches: the records and the
/// tag's links, which is what a bulk expansion reads, and the tag's reach counter, which its 202
/// reads (not their postings: lists do not show them).
/// Their ids, ascending.
pub async fn tagged_customers(
    store: &Store,
    account: AccountId,
    tag: billing_api::values::TagId,
    count: usize,
) -> Vec<billing_api::values::ContactId> {
    customers(store, account, tag, count, false).await
}

/// [`tagged_customers`] with their postings and counts too, so that contact lists and searches
/// find them.
pub async fn listed_customers(
    store: &Store,
    account: AccountId,
    tag: billing_api::values::TagId,
    count: usize,
) -> Vec<billing_api::values::ContactId> {
    customers(store, account, tag, count, true).await
}

async fn customers(
    store: &Store,
    account: AccountId,
    tag: billing_api::values::TagId,
    count: usize,
    listed: bool,
) -> Vec<billing_api::values::ContactId> {
    use billing_api::contacts::Contact;
    use billing_api::store::{item, keys, records, KeyItem};
    use billing_api::values::{ContactId, Cpf};
    let first = store.reserve_ids(keys::account(account), keys::sequence("CONTACT"), count as i64).await.expect("ids");
    let mut items = Vec::new();
    let mut ids = Vec::new();
    let mut counts: std::collections::BTreeMap<String, i64> = std::collections::BTreeMap::new();
    for n in 0..count as i64 {
        let id = ContactId::new(first + n);
        let contact = Contact {
            full_name: Some(format!("Cliente Lote {n}")),
            cpf: Cpf::parse(&cpf(400_000_000 + (first + n) as u64 % 500_000_000)),
            address_postal_code: Some("01310-100".into()),
            address_street: Some("Avenida Paulista".into()),
            address_number: Some("1000".into()),
            address_district: Some("Bela Vista".into()),
            address_city: Some("São Paulo".into()),
            address_state: Some("SP".into()),
            tag_ids: vec![tag],
            version: 1,
            ..Contact::blank(id)
        };
        items.push(records::item_of(account, &contact).expect("a contact item"));
        if listed {
            let postings = billing_api::contacts::postings::of(account, &contact);
            items.extend(postings.iter().map(billing_api::store::postings::Posting::item));
            for (count, delta) in billing_api::store::counting::counts_of(&contact, 1) {
                *counts.entry(count).or_default() += delta;
            }
        }
        let link = KeyItem { pk: keys::contact::tag_links(account, tag), sk: keys::record("CONTACT", id) };
        items.push(item::to_item(&link).expect("a link item"));
        ids.push(id);
    }
    store.put_all(items).await.expect("write the contacts");
    // The tag's reach counter, which a bulk billing's 202 reads.
    let reach = billing_api::contacts::counts::reach_added(account, tag, ids[0], count as i64);
    store.write(vec![reach]).await.expect("count the tag's reach");
    if listed {
        let customers = billing_api::values::ContactType::Customer;
        let counter = keys::contact::contact_count_shards(account, customers);
        let counts: Vec<(String, i64)> = counts.into_iter().collect();
        let holders = billing_api::contacts::counts::holders_added(account, tag, customers, ids[0], count as i64);
        store
            .write(vec![billing_api::store::shards::add_each(counter, ids[0].get(), &counts), holders])
            .await
            .expect("count the contacts");
    }
    ids
}

/// A valid CPF from 9 base digits (the two check digits computed).
pub fn cpf(base: u64) -> String {
    let mut digits: Vec<u64> = format!("{base:09}").bytes().map(|b| u64::from(b - b'0')).collect();
    for len in [9, 10] {
        let sum: u64 = digits.iter().take(len).enumerate().map(|(i, d)| d * (len as u64 + 1 - i as u64)).sum();
        digits.push(match sum % 11 {
            0 | 1 => 0,
            r => 11 - r,
        });
    }
    digits.iter().map(u64::to_string).collect()
}
