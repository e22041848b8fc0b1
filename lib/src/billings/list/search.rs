//! `s`, which no key can serve: the billings whose contact's description contains the term or
//! whose document is its digits, and those whose `evincive` contains it, found by a bounded scan.

use std::collections::{BTreeSet, HashSet};

use super::walk::{ids_where, ids_within};
use crate::refusal::Refusal;
use crate::store::keys::{
    self, billing::billing_facet, billing::BillingEntry, billing::TextPosting, contact::contact_facet,
    contact::ContactPosting,
};
use crate::store::{item, postings, Item, KeyRange, Sort, Store};
use crate::values::text::sort_key;
use crate::values::{AccountId, BillingType, ContactId, ContactType};

/// The payers whose billings a search reads from their own postings (4 queries each, at once);
/// past them it reads every billing's key entry instead (`billed_to`).
const PAYERS_READ_APART: usize = 100;

/// The billings `term` finds. Reads, at once, every `ALL` posting of the account's contacts
/// (both types) and every evincive posting (four shards), a page (a megabyte) per round trip,
/// keeping only the matches; then the billings of the matching contacts: up to
/// [`PAYERS_READ_APART`] from their own postings, more from every billing's key entry
/// (`billed_to`). At most `postings::SEARCH_SCAN` postings of each partition: beyond, it says it
/// stopped (the second value).
pub async fn searched(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    term: &str,
) -> Result<(BTreeSet<i64>, bool), Refusal> {
    let digits: String = term.chars().filter(char::is_ascii_digit).collect();
    let folded = sort_key(term);
    let (digits, folded) = (digits.as_str(), folded.as_str());
    let contact_scans = ContactType::ALL.iter().map(|contact_type| async move {
        let range = KeyRange::listing(
            keys::contact::contact_postings(account, contact_type.as_str(), contact_facet::ALL),
            Sort::All,
            true,
        );
        let mut payers = Vec::new();
        let stopped = postings::scan(store, &range, postings::SEARCH_SCAN, |posting| {
            let sk = item::text(posting, "sk").unwrap_or_default();
            let described = keys::order_name(sk).is_some_and(|description| description.contains(folded));
            let documented = !digits.is_empty() && ContactPosting::read(posting).document_digits() == Some(digits);
            if described || documented {
                payers.extend(postings::id_at_end(sk));
            }
        })
        .await?;
        Ok::<_, Refusal>((payers, stopped))
    });
    let texts = keys::billing::billing_posting_shards(account, billing_type.as_str(), Some(billing_facet::EVINCIVE));
    let described = |posting: &Item| TextPosting::read(posting).text.is_some_and(|text| text.contains(folded));
    let (payers, (described, stopped)) = tokio::try_join!(
        futures::future::try_join_all(contact_scans),
        ids_within(store, texts, Sort::All, postings::SEARCH_SCAN, described)
    )?;
    let (mut found, mut partial) = (described, stopped);
    let mut matched = HashSet::new();
    for (ids, stopped) in payers {
        partial |= stopped;
        matched.extend(ids);
    }
    if matched.len() <= PAYERS_READ_APART {
        // A few payers: their own postings, all at once.
        let shards = |contact: i64| {
            keys::billing::billing_posting_shards(
                account,
                billing_type.as_str(),
                Some(&billing_facet::contact(ContactId::new(contact))),
            )
        };
        let billed = matched.iter().map(|contact| ids_where(store, shards(*contact), Sort::All, |_| true));
        for ids in futures::future::try_join_all(billed).await? {
            found.extend(ids);
        }
    } else {
        let (billed, stopped) = billed_to(store, account, billing_type, &matched).await?;
        partial |= stopped;
        found.extend(billed);
    }
    Ok((found, partial))
}

/// The billings of a type whose contact is one of `payers`: every key entry (which carries the
/// billing's contact) of the type's four shards, at once, a page per round trip, up to
/// `postings::SEARCH_SCAN` a shard; and whether it stopped there.
async fn billed_to(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    payers: &HashSet<i64>,
) -> Result<(BTreeSet<i64>, bool), Refusal> {
    let entries = keys::billing::billing_posting_shards(account, billing_type.as_str(), None);
    let billed = |entry: &Item| {
        let contact = BillingEntry::read(entry).contact.and_then(|c| c.parse::<i64>().ok());
        contact.is_some_and(|contact| payers.contains(&contact))
    };
    ids_within(store, entries, Sort::All, postings::SEARCH_SCAN, billed).await
}
