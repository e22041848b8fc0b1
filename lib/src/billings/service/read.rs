//! Reading a billing with what its single representation embeds (its contact, tag, billets and
//! reminder deliveries), and the contacts and tags of a page of billings, each in as few round
//! trips as it can.

use std::collections::HashMap;

use crate::billets::model::{self as billets, BankBillet};
use crate::billings::model::Billing;
use crate::billings::reminder_deliveries::Delivery;
use crate::billings::view::Embedded;
use crate::contacts::Contact;
use crate::refusal::Refusal;
use crate::store::records;
use crate::store::{keys, Store};
use crate::tags::Tag;
use crate::values::{AccountId, BillingId, ContactId, TagId};

/// The account's billing `id` with its billets, newest first (one query of its partition), or
/// 404.
pub async fn whole_or_404(
    store: &Store,
    account: AccountId,
    id: BillingId,
) -> Result<(Billing, Vec<BankBillet>), Refusal> {
    let (pk, prefix) = keys::billing::billing_whole(account, id);
    // Descending: `BILLING` sorts after every `BILLET#…`, and the billets newest first.
    let mut items = store.items_with_prefix(pk, prefix, false).await?.into_iter();
    let billing = match items.next() {
        Some(item) if crate::store::KeyItem::keys_of(&item).1 == keys::billing::BILLING_SK => {
            records::read::<Billing>(item)?
        }
        _ => return Err(Refusal::NotFound),
    };
    let billets = crate::store::stored::read_all(items.collect())?;
    Ok((billing, billets))
}

/// The contact, tag and reminder deliveries a billing's representation embeds (read together: one
/// round trip).
pub(super) async fn related(
    store: &Store,
    account: AccountId,
    billing: &Billing,
) -> Result<(Option<Contact>, Option<Tag>, Vec<Delivery>), Refusal> {
    Ok(tokio::try_join!(
        records::find_referenced::<Contact>(store, account, billing.contact_id),
        records::find_referenced::<Tag>(store, account, billing.tag_id),
        // Boxed: a query's future is large, and every change of a billing (workers, whose futures
        // are joined two at a time in tests, included) reads this.
        Box::pin(crate::billings::reminder_deliveries::of_billing(store, account, billing.id)),
    )?)
}

/// The contacts and tags of a page of billings, by id (two batch reads at once: one round trip).
pub async fn related_to_page(
    store: &Store,
    account: AccountId,
    billings: &[Billing],
) -> Result<(HashMap<ContactId, Contact>, HashMap<TagId, Tag>), Refusal> {
    let mut contact_ids: Vec<ContactId> = billings.iter().filter_map(|b| b.contact_id).collect();
    contact_ids.sort_unstable();
    contact_ids.dedup();
    let mut tag_ids: Vec<TagId> = billings.iter().filter_map(|b| b.tag_id).collect();
    tag_ids.sort_unstable();
    tag_ids.dedup();
    let (contacts, tags) = tokio::try_join!(
        records::find_many::<Contact>(store, account, &contact_ids),
        records::find_many::<Tag>(store, account, &tag_ids)
    )?;
    Ok((contacts.into_iter().map(|c| (c.id, c)).collect(), tags.into_iter().map(|t| (t.id, t)).collect()))
}

/// What the billing's single representation embeds: its contact, tag and billets (read together:
/// one round trip).
pub async fn embedded(store: &Store, account: AccountId, billing: &Billing) -> Result<Embedded, Refusal> {
    let (billets, (contact, tag, reminders)) =
        tokio::try_join!(stored_billets(store, account, billing), related(store, account, billing))?;
    Ok(Embedded { contact, tag, billets, reminders })
}

/// The account's billing `id` with what its single representation embeds (two calls one after
/// the other: the billing with its billets, then its contact and tag), or 404.
pub async fn shown(store: &Store, account: AccountId, id: BillingId) -> Result<(Billing, Embedded), Refusal> {
    let (billing, billets) = whole_or_404(store, account, id).await?;
    let (contact, tag, reminders) = related(store, account, &billing).await?;
    Ok((billing, Embedded { contact, tag, billets, reminders }))
}

/// The billing's billets, newest first (none to read when no registration was ever asked for:
/// legacy records).
async fn stored_billets(store: &Store, account: AccountId, billing: &Billing) -> Result<Vec<BankBillet>, Refusal> {
    Ok(match billing.billet_generation {
        0 => Vec::new(),
        _ => billets::of_billing(store, account, billing.id).await?,
    })
}
