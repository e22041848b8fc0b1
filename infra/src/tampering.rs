//! What the black-box tests do to the table around the service, and read of it behind the API,
//! each named for what it stands for: counts left wrong (as billings written around the service
//! leave them), a category's counter emptied (billings written before it had one), a posting of an
//! older shape, an item deleted as a deletion does, events written as a change's transaction
//! writes them, and stored records, tasks and idempotency claims read back. The tests say what
//! they simulate; how it is stored stays in `billing_api::store` (`keys` above all), so that a
//! change of schema changes this file, not the tests.

use std::collections::HashSet;

use billing_api::billings::model::Billing;
use billing_api::contacts::Contact;
use billing_api::events::Event;
use billing_api::jobs::tasks::{self, Task};
pub use billing_api::store::keys::billing::BillingTally;
use billing_api::store::keys::{self, billing::ValuePosting, contact::contact_facet};
use billing_api::store::postings::Posting;
use billing_api::store::{item, records, shards, stored, Item, Store, Write};
use billing_api::values::{AccountId, BillingId, BillingType, ContactId, ContactType, TagId};
use chrono::NaiveDate;

/// The billings counter of `account`'s billings.
fn billings_counter(account: AccountId) -> String {
    keys::billing::billing_count_shards(account, BillingType::Billing.as_str())
}

/// Moves the billings counter's total by `total` and each of `tallies` by its number, in shard
/// `shard`, as billings written around the service would leave it.
pub async fn miscount_billings(
    store: &Store,
    account: AccountId,
    shard: i64,
    total: i64,
    tallies: &[(BillingTally, i64)],
) {
    let mut counts = vec![(keys::counter::COUNT_ATTRIBUTE.to_owned(), total)];
    counts.extend(tallies.iter().map(|(tally, by)| (tally.name(), *by)));
    store.write(vec![shards::add_each(billings_counter(account), shard, &counts)]).await.expect("miscount billings");
}

/// Moves the billings counter's count `tally` on `day` by `by`, in day shard `shard`.
pub async fn miscount_billings_on(
    store: &Store,
    account: AccountId,
    day: NaiveDate,
    shard: i64,
    tally: BillingTally,
    by: i64,
) {
    let counts = [(tally.name(), by)];
    let write = shards::add_on_day(&billings_counter(account), day, shard, &counts);
    store.write(vec![write]).await.expect("miscount billings on a day");
}

/// Brings a category's own counter (and its days) to zero, as it was before billings counted in
/// it.
pub async fn empty_category_counter(store: &Store, account: AccountId, category: i64) {
    let own = keys::billing::billing_category_count_shards(account, BillingType::Billing.as_str(), category);
    shards::recount(store, own.clone(), &Default::default()).await.expect("empty the counter");
    shards::recount_days(store, &own, &Default::default()).await.expect("empty the counter's days");
}

/// Writes the posting of `billing`'s contact `contact` as it was before a value's posting carried
/// the billing's other values and creation date.
pub async fn uncarry_contact_posting(store: &Store, account: AccountId, billing: BillingId, contact: ContactId) {
    let billing = stored_billing(store, account, billing).await;
    let facet = keys::billing::billing_facet::contact(contact);
    let partition = keys::billing::billing_postings(
        account,
        billing.billing_type.as_str(),
        &facet,
        keys::billing::posting_shard(billing.id),
    );
    let postings = billing_api::billings::postings::of(account, &billing);
    let posting = postings.into_iter().find(|p| p.pk == partition).expect("the contact's posting");
    let state = ValuePosting::read(&posting.item()).state.map(str::to_owned);
    let older = Posting { extra: ValuePosting { state: state.as_deref(), carried: None }.attributes(), ..posting };
    store.put_all(vec![older.item()]).await.expect("write the older posting");
}

/// Deletes a billing's item alone, as a deletion does.
pub async fn delete_billing_item(store: &Store, account: AccountId, id: BillingId) {
    let (pk, sk) = keys::billing::billing(account, id);
    store.write(vec![Write::delete(pk, sk)]).await.expect("delete the billing's item");
}

/// A billing as stored.
pub async fn stored_billing(store: &Store, account: AccountId, id: BillingId) -> Billing {
    records::find::<Billing>(store, account, id).await.expect("read the billing").expect("the billing")
}

/// Stores `next` in place of `current` (its version one more), around the API's rules: a state
/// the API does not write (a checkout gateway's link).
pub async fn replace_billing(store: &Store, account: AccountId, current: &Billing, next: &Billing) {
    records::replace(store, account, current, next, Vec::new()).await.expect("replace the billing");
}

/// A contact as stored.
pub async fn stored_contact(store: &Store, account: AccountId, id: ContactId) -> Contact {
    records::find::<Contact>(store, account, id).await.expect("read the contact").expect("the contact")
}

/// Stores a contact as the service stored it before its names were renamed
/// (`keys::contact::ContactNames::Before`): its record without `names`, its postings and tag counts under the
/// names before, in one transaction, as data of that shape is.
pub async fn store_under_legacy_names(store: &Store, account: AccountId, id: ContactId) {
    let current = stored_contact(store, account, id).await;
    let legacy =
        Contact { names: keys::contact::ContactNames::Before, version: current.version + 1, ..current.clone() };
    let counts = billing_api::contacts::counts::reach_moves(account, Some(&current), Some(&legacy));
    records::replace(store, account, &current, &legacy, counts)
        .await
        .expect("store the contact under the names before");
}

/// How many postings of the account's contacts are under the names before today's
/// (`keys::contact::ContactNames::Before`), of both types: `tag`'s, `code`'s, and the `ALL` postings (of the first
/// thousand) carrying the document under the name before.
pub async fn legacy_contact_postings(
    store: &Store,
    account: AccountId,
    tag: TagId,
    code: &str,
) -> (usize, usize, usize) {
    let (mut tagged, mut coded, mut documented) = (0, 0, 0);
    for contact_type in ContactType::ALL {
        let partition = |facet: &str| keys::contact::contact_postings(account, contact_type.as_str(), facet);
        tagged +=
            store.partition_keys(partition(&keys::contact::ContactNames::Before.tag(tag))).await.expect("read").len();
        coded +=
            store.partition_keys(partition(&keys::contact::ContactNames::Before.code(code))).await.expect("read").len();
        let all =
            billing_api::store::KeyRange::listing(partition(contact_facet::ALL), billing_api::store::Sort::All, true);
        let items = store.items_in(&all, 0, 1000).await.expect("read");
        documented += items
            .iter()
            .filter(|posting| keys::contact::ContactPosting::read(posting).legacy_document.is_some())
            .count();
    }
    (tagged, coded, documented)
}

/// The account's tasks not handed on yet.
pub async fn pending_tasks(store: &Store, account: AccountId) -> Vec<Task> {
    let mut found = Vec::new();
    for (pk, sk) in tasks::pending_of(store, account).await.expect("the pending tasks") {
        let stored = store.get(pk, sk).await.expect("read a task").expect("the task");
        found.push(item::from_item(stored).expect("a task"));
    }
    found
}

/// Writes events in the outbox, as a change's transaction does, at once.
pub async fn record_events(store: &Store, events: &[Event]) {
    let items = events.iter().map(|e| stored::item_of(e, ()).expect("an event's item")).collect();
    store.put_all(items).await.expect("events recorded");
}

/// Writes one event in the outbox, as a change's transaction does.
pub async fn record_event(store: &Store, event: &Event) {
    store.write(vec![stored::insert(event, ()).expect("an event's item")]).await.expect("event recorded");
}

/// The outbox partitions `events` fall in.
pub fn event_partitions(account: AccountId, events: &[Event]) -> HashSet<String> {
    events.iter().map(|e| keys::event::events(account, &e.event_id)).collect()
}

/// The stored claim of idempotency key `key` of `account` (its items).
pub async fn idempotency_claim(store: &Store, account: AccountId, key: &str) -> Vec<Item> {
    let (pk, sk) = keys::auth::idempotency_claim(account, key);
    store.items_with_prefix(pk, sk, true).await.expect("read the claim")
}

/// The account's tags whose name holds `term`, reading at most `limit` of their postings, and
/// whether it stopped there (`store::postings::named_within`).
pub async fn tags_named_within(store: &Store, account: AccountId, term: &str, limit: usize) -> (usize, bool) {
    let partition = keys::contact::tag_postings(account);
    let (found, partial) =
        billing_api::store::postings::named_within(store, partition, term, limit).await.expect("a bounded search");
    (found.len(), partial)
}

/// Moves the counter of `account`'s contacts of `contact_type`, in shard 1: its total by `total`,
/// its active contacts by `active` and those without a group by `without_group`, as contacts
/// written around the service would leave it.
pub async fn miscount_contacts(
    store: &Store,
    account: AccountId,
    contact_type: ContactType,
    total: i64,
    active: i64,
    without_group: i64,
) {
    let counts = [
        (keys::counter::COUNT_ATTRIBUTE.to_owned(), total),
        (contact_facet::active(true).to_owned(), active),
        (contact_facet::group(None), without_group),
    ];
    let write = shards::add_each(keys::contact::contact_count_shards(account, contact_type), 1, &counts);
    store.write(vec![write]).await.expect("miscount contacts");
}

/// Moves a tag's holders of `contact_type` by `holders` and its reach by `reach`, in shard 1.
pub async fn miscount_tag(
    store: &Store,
    account: AccountId,
    tag: TagId,
    contact_type: ContactType,
    holders: i64,
    reach: i64,
) {
    // One item holds both counts: a write each.
    let holder = ContactId::new(1);
    let held = billing_api::contacts::counts::holders_added(account, tag, contact_type, holder, holders);
    store.write(vec![held]).await.expect("miscount a tag's holders");
    let reached = billing_api::contacts::counts::reach_added(account, tag, holder, reach);
    store.write(vec![reached]).await.expect("miscount a tag's reach");
}
