//! Every key string of the table is built here and nowhere else (docs/data-model.md).

use sha2::{Digest, Sha256};

use crate::values::{AccountId, BilletId, BillingId, ContactId, ContactType, SaleId, TagId, WebhookId};

/// Partition of everything an account owns.
pub fn account(account: AccountId) -> String {
    format!("A#{account}")
}

pub const ACCOUNT_SK: &str = "ACCOUNT";

/// Items not owned by an account (the account-id sequence).
pub const GLOBAL_PK: &str = "GLOBAL";

/// Sequence item of a kind of record (`UpdateItem ADD`): per account, or global for accounts.
pub fn sequence(kind: &str) -> String {
    format!("SEQ#{kind}")
}

/// Lookup item of an API token: its SHA-256 digest, never the token.
pub fn token(digest: &str) -> String {
    format!("TOKEN#{digest}")
}

pub const TOKEN_SK: &str = "TOKEN";

/// The digest a token's lookup item is keyed by (its `pk`, [`token`]).
pub fn token_digest(pk: &str) -> String {
    pk.strip_prefix("TOKEN#").unwrap_or(pk).to_owned()
}

/// Request counter of one origin IP in one whole minute (minutes since the Unix epoch); removed by
/// the table's TTL.
pub fn ip_rate_window(ip: &str, minute: i64) -> String {
    format!("RL#IP#{ip}#{minute}")
}

/// Request counter of one API token (its digest) in one whole minute.
pub fn token_rate_window(digest: &str, minute: i64) -> String {
    format!("RL#TOKEN#{digest}#{minute}")
}

pub const RATE_WINDOW_SK: &str = "RL";

/// One of the items a high limit's window is counted in (`rate_limit`).
pub fn rate_window_shard(window: &str, shard: i64) -> String {
    format!("{window}#{shard}")
}

/// Partition of the claim of one idempotency key of an account (an item of its own, so that keys
/// spread over partitions and no prefix query of the account meets them); the key is hashed so
/// that any 255 characters make a short, safe key.
pub fn idempotency(account: AccountId, key: &str) -> String {
    format!("A#{account}#IDEM#{}", hex::encode(Sha256::digest(key.as_bytes())))
}

pub const IDEMPOTENCY_SK: &str = "IDEM";

/// The keys of the claim of one idempotency key of an account.
pub fn idempotency_claim(account: AccountId, key: &str) -> (String, String) {
    (idempotency(account, key), IDEMPOTENCY_SK.to_owned())
}

/// Records of one kind, by id, zero-padded so that key order is id order.
pub fn record(kind: &str, id: impl Into<i64>) -> String {
    format!("{kind}#{:010}", id.into())
}

/// `gsi1` partition listing the records of one kind of one account.
pub fn listing(account: AccountId, kind: &str) -> String {
    format!("A#{account}#{kind}")
}

/// Guard item that makes a value unique in an account. The value is hashed so that the key stays
/// short whatever its length (a 255-character description may be 1 KB of UTF-8).
pub fn unique(kind: &str, value: &str) -> String {
    format!("UNIQUE#{kind}#{}", hex::encode(Sha256::digest(value.as_bytes())))
}

/// Partition of the links from one tag to its contacts (`sk` = the contact's record key), which the
/// bulk expansion of billings and tag deletion query.
pub fn tag_links(account: AccountId, tag: TagId) -> String {
    format!("A#{account}#TAG#{tag}")
}

/// The keys of a billing: a partition of its own (`A#<acct>#BILLING#<id:010>`, `sk = BILLING`),
/// which its billets share, so that no partition takes every create of an account and a
/// billing's billets are its partition's other items.
pub fn billing(account: AccountId, id: BillingId) -> (String, String) {
    (billing_partition(account, id), BILLING_SK.to_owned())
}

fn billing_partition(account: AccountId, id: BillingId) -> String {
    format!("A#{account}#BILLING#{:010}", id.get())
}

pub const BILLING_SK: &str = "BILLING";

/// Partitions each kind of billing posting is spread over, by the billing's id: every create of
/// an account writes a posting in the creation-date, status and key partitions, which one
/// partition each would cap at DynamoDB's 1,000 write units a second (about 500 creates).
pub const POSTING_SHARDS: i64 = 4;

/// The posting shard of a billing.
pub fn posting_shard(id: BillingId) -> i64 {
    id.get().rem_euclid(POSTING_SHARDS)
}

/// Partition (one shard of it) holding one key-only item per billing of a type
/// (`sk = BILLING#<id:010>`): an unfiltered list skips to a deep page by reading these small items.
pub fn billing_keys(account: AccountId, billing_type: &str, shard: i64) -> String {
    format!("A#{account}#BILLINGS#{billing_type}#{shard}")
}

/// Partition (one shard of it) of the postings of one filter value of a billing type (key-only
/// items): `A#<account>#BILLINGS#<type>#<facet>#<shard>`, the facet being `C<contact>`,
/// `R<bank rule>`, `K<category>`, `P<parent booklet>`, `Y<your_code hash>`, `S<status>`, `T`
/// (creation dates) or `E` (evincive texts). See `billings::postings`.
pub fn billing_postings(account: AccountId, billing_type: &str, facet: &str, shard: i64) -> String {
    format!("A#{account}#BILLINGS#{billing_type}#{facet}#{shard}")
}

/// Every shard of a facet's postings (or, without a facet, of the key partition).
pub fn billing_posting_shards(account: AccountId, billing_type: &str, facet: Option<&str>) -> Vec<String> {
    (0..POSTING_SHARDS)
        .map(|shard| match facet {
            Some(facet) => billing_postings(account, billing_type, facet, shard),
            None => billing_keys(account, billing_type, shard),
        })
        .collect()
}

/// Sort key of a posting in id order (newest last; lists read it descending).
pub fn posting_by_id(id: BillingId) -> String {
    format!("{:010}", id.get())
}

/// Sort key of a posting in date order, then id.
pub fn posting_by_date(date: chrono::NaiveDate, id: BillingId) -> String {
    format!("{date}#{:010}", id.get())
}

/// A `your_code` in a posting partition's name: a hash (any length fits), 16 hex digits.
pub fn your_code_facet(code: &str) -> String {
    format!("Y{}", &hex::encode(Sha256::digest(code.as_bytes()))[..16])
}

/// The facets of a billing's posting partitions (`billing_postings`): one per filter value.
pub mod billing_facet {
    use crate::values::{BankRuleId, BillCategoryId, BillingId, BillingStatus, ContactId};

    pub fn contact(id: ContactId) -> String {
        format!("C{id}")
    }

    pub fn bank_rule(id: BankRuleId) -> String {
        format!("R{id}")
    }

    pub fn category(id: BillCategoryId) -> String {
        format!("K{id}")
    }

    pub fn parent(id: BillingId) -> String {
        format!("P{id}")
    }

    /// A status's postings, in due-date order.
    pub fn status(status: BillingStatus) -> String {
        format!("S{status}")
    }

    /// Every billing by the day it was created.
    pub const CREATED: &str = "T";
    /// Billings with an `evincive` text, carrying its sort key (`e`).
    pub const EVINCIVE: &str = "E";
}

/// The facets of a contact's posting partitions (`contact_postings`): one per filter value.
pub mod contact_facet {
    use crate::values::{GroupId, TagId};

    /// Every contact of the type.
    pub const ALL: &str = "ALL";
    /// Contacts by e-mail (`<email>#<order>`).
    pub const EMAIL: &str = "M";

    /// The contacts of a group; `None` (no group) is a facet of its own.
    pub fn group(id: Option<GroupId>) -> String {
        id.map_or("G0".to_owned(), |g| format!("G{g}"))
    }

    pub fn tag(id: TagId) -> String {
        format!("T{id}")
    }

    pub fn active(active: bool) -> &'static str {
        if active {
            "A1"
        } else {
            "A0"
        }
    }

    /// A contact's code: a hash (any length fits).
    pub fn code(code: &str) -> String {
        format!("K{}", super::hashed(code))
    }
}

/// What the shards of a sharded item's partition begin with (`count_shard`, reference counts).
pub const SHARD_PREFIX: &str = "SHARD#";

/// Partition of the postings of one filter value of an account's contacts of a type:
/// `A#<account>#CONTACTS#<customer|supplier>#<facet>`, the facet being `ALL` (every contact, with
/// its document digits for the document search), `G<group>` (`G0`: none), `T<tag>`, `A1`/`A0`
/// (active or not), `K<code hash>` or `M` (by e-mail, for the prefix search). Sort keys are the
/// description's sort key and the id (`M`: the e-mail first). See `contacts::postings`.
pub fn contact_postings(account: AccountId, contact_type: &str, facet: &str) -> String {
    format!("A#{account}#CONTACTS#{contact_type}#{facet}")
}

/// Partition of an account's tag postings (by name), which tag lists read.
pub fn tag_postings(account: AccountId) -> String {
    format!("A#{account}#TAGS")
}

/// Partition of an account's group postings of a contact type (by description).
pub fn group_postings(account: AccountId, contact_type: &str) -> String {
    format!("A#{account}#GROUPS#{contact_type}")
}

/// Partition of the shards of the counter of records of a kind (and subtype) of an account.
pub fn count_shards(account: AccountId, kind: &str) -> String {
    format!("A#{account}#COUNT#{kind}")
}

/// A short, fixed-length form of a text in a key (any length fits): 16 hex digits of its SHA-256.
pub fn hashed(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))[..16].to_owned()
}

/// Partition of the shards of the counter of an account's contacts of a type (`store::shards`):
/// `value`, and the tallies of `Contact::tallies`.
pub fn contact_count_shards(account: AccountId, contact_type: ContactType) -> String {
    count_shards(account, &format!("CONTACT#{contact_type}"))
}

/// Partition of the shards of the counter of an account's billings of a type (`store::shards`).
pub fn billing_count_shards(account: AccountId, billing_type: &str) -> String {
    format!("A#{account}#COUNT#BILLING#{billing_type}")
}

/// Counter of the billings of a type in one category (its total, per status, and per status on
/// each due day): the total of a list by the category and statuses or due dates.
pub fn billing_category_count_shards(account: AccountId, billing_type: &str, category: i64) -> String {
    format!("{}#K{category}", billing_count_shards(account, billing_type))
}

/// Partition of the reference-count shards of record `(kind, id)` that fall in `partition`
/// (`store::refs`).
pub fn reference_shards(account: AccountId, kind: &str, id: i64, partition: i64) -> String {
    format!("A#{account}#REFS#{kind}#{id:010}#{partition}")
}

/// Partition of the shards of `counter` (one of [`count_shards`], [`billing_count_shards`]) that
/// fall in `partition` (`store::shards`).
pub fn counter_partition(counter: &str, partition: i64) -> String {
    format!("{counter}#{partition}")
}

pub fn count_shard(shard: u32) -> String {
    format!("{SHARD_PREFIX}{shard:02}")
}

/// A number from 0 to `shards - 1` that a text (an event's or a task's id) always gets: what
/// spreads the items an account writes fast over partitions.
pub fn shard_of(text: &str, shards: i64) -> i64 {
    let digest = Sha256::digest(text.as_bytes());
    i64::from(u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])).rem_euclid(shards)
}

/// Partitions an account's events are spread over (by their id), so that a burst of changes of
/// one account does not write one partition past DynamoDB's 1,000 write units a second: an event
/// carries the billing's whole representation (a few KB, twice that in its transaction), and
/// every registration of a billet writes one.
pub const EVENT_SHARDS: i64 = 32;

/// Partition of one shard of an account's event outbox (the shard of the event's id).
pub fn events(account: AccountId, event_id: &str) -> String {
    format!("A#{account}#EVENTS#{}", shard_of(event_id, EVENT_SHARDS))
}

/// Every partition of an account's event outbox.
pub fn event_partitions(account: AccountId) -> Vec<String> {
    (0..EVENT_SHARDS).map(|shard| format!("A#{account}#EVENTS#{shard}")).collect()
}

/// Partitions an account's tasks (follow-up work recorded with a change, `jobs::tasks`) are
/// spread over, by their id.
pub const TASK_SHARDS: i64 = 8;

/// Partition of one shard of an account's tasks.
pub fn tasks(account: AccountId, task_id: &str) -> String {
    format!("A#{account}#TASKS#{}", shard_of(task_id, TASK_SHARDS))
}

/// Every partition of an account's tasks.
pub fn task_partitions(account: AccountId) -> Vec<String> {
    (0..TASK_SHARDS).map(|shard| format!("A#{account}#TASKS#{shard}")).collect()
}

/// Prefix of every task's sort key.
pub const TASK_PREFIX: &str = "TASK#";

/// A task, in order of creation (epoch milliseconds, 13 digits).
pub fn task(created_at_millis: i64, task_id: &str) -> String {
    format!("{TASK_PREFIX}{created_at_millis:013}#{task_id}")
}

/// Shards of the index of what the outbox has not handed on yet (`gsi1`): events not dispatched
/// to webhook receivers and tasks not sent to their queues. Each item goes to the shard of its
/// id, so no index partition takes every write of an account, or of the service.
pub const OUTBOX_SHARDS: i64 = 16;

/// `gsi1` partition of one shard of the outbox's pending items.
pub fn outbox_pending(shard: i64) -> String {
    format!("OUTBOX#PENDING#{shard}")
}

/// The pending-index partition of an event or task id.
pub fn outbox_shard(id: &str) -> i64 {
    shard_of(id, OUTBOX_SHARDS)
}

/// The pending-index sort key of an event or task: its millisecond, then its id.
pub fn outbox_order(created_at_millis: i64, id: &str) -> String {
    format!("{created_at_millis:013}#{id}")
}

/// Partition of an account's webhook deliveries and their attempts (kept 30 days).
pub fn webhook_log(account: AccountId) -> String {
    format!("A#{account}#WEBHOOKS")
}

/// A webhook receiver of an account (in the account's partition).
pub fn webhook(id: WebhookId) -> String {
    record("WEBHOOK", id)
}

pub const WEBHOOK_PREFIX: &str = "WEBHOOK#";

/// A delivery of one event to one receiver, in order of the event's creation (epoch ms, 13 digits).
pub fn delivery(event_ms: i64, event_id: &str, receiver: WebhookId) -> String {
    format!("{DELIVERY_PREFIX}{event_ms:013}#{event_id}#{:010}", receiver.get())
}

pub const DELIVERY_PREFIX: &str = "DELIVERY#";

/// `gsi1` partition of an account's failed deliveries, by the time they failed
/// (`gsi1sk` = [`failed_delivery`]).
pub fn failed_deliveries(account: AccountId) -> String {
    format!("A#{account}#WEBHOOKS#FAILED")
}

/// Sort key of a failed delivery in [`failed_deliveries`]: when it failed (epoch ms, 13 digits),
/// then its own sort key.
pub fn failed_delivery(failed_at_millis: i64, delivery_sk: &str) -> String {
    format!("{failed_at_millis:013}#{delivery_sk}")
}

/// Where the failed deliveries since a moment (epoch ms) start in [`failed_deliveries`].
pub fn failed_since(millis: i64) -> String {
    format!("{millis:013}")
}

/// The deliveries of one event (a prefix of [`delivery`]).
pub fn deliveries_of(event_ms: i64, event_id: &str) -> String {
    format!("{DELIVERY_PREFIX}{event_ms:013}#{event_id}#")
}

/// One attempt of a delivery.
pub fn delivery_attempt(event_ms: i64, event_id: &str, receiver: WebhookId, attempt: u32) -> String {
    format!("ATTEMPT#{event_ms:013}#{event_id}#{:010}#{attempt:03}", receiver.get())
}

/// The attempts of one delivery (a prefix of [`delivery_attempt`]).
pub fn attempts_of(event_ms: i64, event_id: &str, receiver: WebhookId) -> String {
    format!("ATTEMPT#{event_ms:013}#{event_id}#{:010}#", receiver.get())
}

/// A point-of-sale sale (in the account's partition).
pub fn sale(id: SaleId) -> String {
    record("SALE", id)
}

/// Prefix of [`sale`]: the lines of a settlement are one key range of it.
pub const SALE_PREFIX: &str = "SALE#";

/// Partition of one key item per sale of the account (`sk` = [`sale_key`]): lists read a page of
/// it, newest first, optionally within a date range.
pub fn sales(account: AccountId) -> String {
    format!("A#{account}#SALES")
}

/// The same, for one contact's sales.
pub fn sales_of_contact(account: AccountId, contact: ContactId) -> String {
    format!("A#{account}#SALES#C{:010}", contact.get())
}

/// Sort key of a sale's key items: sold at (epoch ms, 13 digits), then its id.
pub fn sale_key(sold_at_millis: i64, id: SaleId) -> String {
    format!("{sold_at_millis:013}#{:010}", id.get())
}

/// `gsi1` partition of the account's sales with an open on-account amount
/// (`gsi1sk = <sold on YYYY-MM-DD>#<id:010>`): what a settlement by transfer takes up to a date.
pub fn open_sales(account: AccountId) -> String {
    format!("A#{account}#SALES#OPEN")
}

/// Sort key of an open sale in [`open_sales`]: the day it was sold, then its id.
pub fn open_sale(sold_on: chrono::NaiveDate, id: SaleId) -> String {
    format!("{sold_on}#{:010}", id.get())
}

/// A customer credit added through the API, keyed by its `reference` (hashed: any length), so
/// that the item is its own idempotency guard.
pub fn store_credit(reference: &str) -> String {
    format!("CREDIT#{}", hex::encode(Sha256::digest(reference.as_bytes())))
}

/// Partition of one contact's credit movements (`sk` = [`credit_movement`]).
pub fn credit_movements(account: AccountId, contact: ContactId) -> String {
    format!("A#{account}#CREDITS#{:010}", contact.get())
}

/// The n-th credit movement of a contact (1, 2, …): a page is a key range.
pub fn credit_movement(n: i64) -> String {
    format!("MOVE#{n:010}")
}

/// A settlement by transfer, keyed by its `reference` (hashed).
pub fn settlement(reference: &str) -> String {
    format!("SETTLEMENT#{}", hex::encode(Sha256::digest(reference.as_bytes())))
}

/// Partition of a settlement's lines (`sk = SALE#<id:010>`): the sales it settled.
pub fn settlement_lines(account: AccountId, reference: &str) -> String {
    format!("A#{account}#{}", settlement(reference))
}

/// Prefix of every event's sort key in the outbox.
pub const EVENT_PREFIX: &str = "EVENT#";

/// An event in the outbox, in order of creation (epoch milliseconds, 13 digits).
pub fn event(created_at_millis: i64, event_id: &str) -> String {
    format!("{EVENT_PREFIX}{created_at_millis:013}#{event_id}")
}

/// Where an account shard's events created at or after a millisecond start (a bound of
/// [`event`]'s range).
pub fn events_from(created_at_millis: i64) -> String {
    format!("{EVENT_PREFIX}{created_at_millis:013}#")
}

/// Where an account shard's events created at or before a millisecond end (a bound of [`event`]'s
/// range: every id sorts below `~`).
pub fn events_through(created_at_millis: i64) -> String {
    format!("{EVENT_PREFIX}{created_at_millis:013}#~")
}

/// Prefix of the sort keys of a billing's bank billets (in the billing's partition).
pub const BILLET_PREFIX: &str = "BILLET#";

/// The keys of a bank billet: in its billing's partition (`sk = BILLET#<id:010>`), so that a
/// billing's billets are one key range of it.
pub fn billet(account: AccountId, billing_id: BillingId, billet_id: BilletId) -> (String, String) {
    (billing_partition(account, billing_id), format!("{BILLET_PREFIX}{:010}", billet_id.get()))
}

/// Lookup item of a payer's link to a billet (`billets::link`): the SHA-256 of its token, never the
/// token, in a partition of its own (links spread evenly; no account's partition grows with them).
pub fn payer_link(token: &str) -> (String, String) {
    (format!("PAYLINK#{}", hex::encode(Sha256::digest(token.as_bytes()))), PAYER_LINK_SK.to_owned())
}

pub const PAYER_LINK_SK: &str = "PAYLINK";

/// The request counter of one origin IP on the payer's pages in one whole minute (a window apart
/// from the API's: a page opened by many payers behind one address does not spend the API's).
pub fn page_rate_client(ip: &str) -> String {
    format!("PAGE#{ip}")
}

/// The partition of a billing and the sort-key prefix its record (`BILLING`) and its billets
/// (`BILLET#…`) share: both in one query.
pub fn billing_whole(account: AccountId, id: BillingId) -> (String, String) {
    (billing_partition(account, id), "BILL".to_owned())
}

/// The partition and sort-key prefix of a billing's billets.
pub fn billets_of(account: AccountId, billing_id: BillingId) -> (String, String) {
    (billing_partition(account, billing_id), BILLET_PREFIX.to_owned())
}

/// Sequence of `our_sequential_number` for one agreement of an account.
pub fn our_number_sequence(agreement: &str) -> String {
    sequence(&format!("OURNUMBER#{agreement}"))
}

/// How many partitions the remittance markers ([`remittance_due`]) spread over.
pub const REMITTANCE_DUE_SHARDS: i64 = 8;

/// The instructions waiting for the next remittance file of one agreement of an account (issue 26):
/// `sk = Q#<billing:010>#<billet:010>#<movement>`, so a file takes them in key order.
pub fn remittance_queue(account: AccountId, agreement: &str) -> String {
    format!("A#{account}#REMITQ#{agreement}")
}

pub const REMITTANCE_QUEUED_PREFIX: &str = "Q#";

pub fn remittance_queued(billing_id: BillingId, billet_id: BilletId, movement: &str) -> String {
    format!("{REMITTANCE_QUEUED_PREFIX}{:010}#{:010}#{movement}", billing_id.get(), billet_id.get())
}

/// The marker that an agreement of an account has instructions waiting: what the scheduled job
/// reads (a few partitions of the whole table) instead of scanning accounts.
pub fn remittance_due(account: AccountId, agreement: &str) -> (String, String) {
    let sk = format!("{REMITTANCE_DUE_PREFIX}{account}#{agreement}");
    (remittance_due_shard(shard_of(&sk, REMITTANCE_DUE_SHARDS)), sk)
}

pub const REMITTANCE_DUE_PREFIX: &str = "D#";

pub fn remittance_due_shard(shard: i64) -> String {
    format!("REMITDUE#{shard}")
}

/// An account's remittance files (`R#<id:010>`) and the markers of those not yet finished
/// (`OPEN#<id:010>`).
pub fn remittances(account: AccountId) -> String {
    format!("A#{account}#REMITTANCES")
}

pub const REMITTANCE_PREFIX: &str = "R#";
pub const OPEN_REMITTANCE_PREFIX: &str = "OPEN#";

pub fn remittance(account: AccountId, id: i64) -> (String, String) {
    (remittances(account), format!("{REMITTANCE_PREFIX}{id:010}"))
}

pub fn open_remittance(account: AccountId, id: i64) -> (String, String) {
    (remittances(account), format!("{OPEN_REMITTANCE_PREFIX}{id:010}"))
}

/// The sequence of remittance files of one agreement (the file's NSA, "número sequencial").
pub fn remittance_sequence(agreement: &str) -> String {
    sequence(&format!("REMITTANCE#{agreement}"))
}

/// An account's return files, one item per file keyed by its SHA-256 (`F#<sha256>`).
pub fn return_files(account: AccountId) -> String {
    format!("A#{account}#RETURNS")
}

pub const RETURN_FILE_PREFIX: &str = "F#";

pub fn return_file(account: AccountId, sha256: &str) -> (String, String) {
    (return_files(account), format!("{RETURN_FILE_PREFIX}{sha256}"))
}

/// A return file's place in the list of the account's files, newest last (key-only, written when the
/// file first comes).
pub fn return_file_listed(account: AccountId, received_ms: i64, sha256: &str) -> (String, String) {
    (return_files(account), format!("{RETURN_LISTED_PREFIX}{received_ms:013}#{sha256}"))
}

pub const RETURN_LISTED_PREFIX: &str = "T#";

/// The SHA-256 a listing key of [`return_file_listed`] names.
pub fn listed_return_sha256(sk: &str) -> Option<&str> {
    sk.strip_prefix(RETURN_LISTED_PREFIX)?.split_once('#').map(|(_, sha)| sha)
}

/// The ledger of one return file: one item per title line (`L#<line:06>`), written in the
/// transaction that applies the line, so a line is applied once however often the file comes.
pub fn return_lines(account: AccountId, sha256: &str) -> String {
    format!("A#{account}#RETURN#{sha256}")
}

pub const RETURN_LINE_PREFIX: &str = "L#";

pub fn return_line(account: AccountId, sha256: &str, line: usize) -> (String, String) {
    (return_lines(account, sha256), format!("{RETURN_LINE_PREFIX}{line:06}"))
}

/// A bulk billing's expansion while it runs: it holds a reference on its tags (`A#<acct>`).
pub fn bulk_expansion(expansion_id: &str) -> String {
    format!("EXPANSION#{expansion_id}")
}

/// The plan of the chunk of a bulk expansion that starts after contact `after` (0: the first),
/// written once (`A#<acct>`): a guard's key, hashed.
pub fn bulk_plan(expansion_id: &str, after: i64) -> String {
    unique("BULKPLAN", &format!("{expansion_id}#{after}"))
}

/// The state of the cascade of a deleted tag or group (`A#<acct>`): which round of its holders
/// runs next. `kind` is the record's (`TAG`, `GROUP`).
pub fn cascade(kind: &str, id: i64) -> String {
    format!("CASCADE#{}", record(kind, id))
}

/// Per-account counter items (`UpdateItem ADD`).
pub fn counter(name: &str) -> String {
    format!("COUNT#{name}")
}

/// Id part of a zero-padded record key.
pub fn id_of(sk: &str) -> Option<i64> {
    sk.rsplit('#').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_fixed_shapes() {
        let account_42 = AccountId::new(42);
        assert_eq!(account(account_42), "A#42");
        assert_eq!(record("TAG", TagId::new(7)), "TAG#0000000007");
        assert_eq!(listing(account_42, "TAG"), "A#42#TAG");
        assert_eq!(id_of("TAG#0000000007"), Some(7));
        assert_eq!(id_of("customers#0000000012"), Some(12));
        let (b12, third) = (BillingId::new(12), BilletId::new(3));
        assert_eq!(billing(account_42, b12), ("A#42#BILLING#0000000012".to_owned(), "BILLING".to_owned()));
        assert_eq!(
            billet(account_42, b12, third),
            ("A#42#BILLING#0000000012".to_owned(), "BILLET#0000000003".to_owned())
        );
        assert_eq!(billets_of(account_42, b12).0, billing(account_42, b12).0);
        assert_eq!(billing_postings(account_42, "billing", "Sopened", 3), "A#42#BILLINGS#billing#Sopened#3");
        assert_eq!(event(1_795_352_400_000, "evt_1"), "EVENT#1795352400000#evt_1");
        let long = "x".repeat(1000);
        assert_eq!(unique("GROUP", &long).len(), "UNIQUE#GROUP#".len() + 64);
    }
}
