//! The reads every plan is made of: the ids of the postings in a range ([`ids_where`]), a walk of
//! sharded postings newest first with the shards in step ([`in_step`]), a page walked beside its
//! count ([`in_id_order`]), and the page's billings read at once ([`page_of`]).

use std::cmp::Reverse;
use std::collections::BTreeSet;

use crate::billings::model::Billing;
use crate::refusal::Refusal;
use crate::store::records::{self, Listed, Window};
use crate::store::{item, keys, postings, Item, KeyRange, Sort, Store};
use crate::values::{AccountId, BillingId};

/// How much more than it expects to need a round of [`in_step`] reads from each shard: a tenth,
/// so that a round that meets a few matches fewer than the average does not need another.
const ROUND_MARGIN: f64 = 1.1;

/// The most items one round of [`in_step`] asks of one shard: a page of DynamoDB is a megabyte
/// anyway (about 20,000 postings), and the cap keeps a rare match's estimate within a number.
const ROUND_MAX_ITEMS: usize = 100_000;

/// The billing ids of the postings in `sort`'s range of every shard of a partition that `keep`
/// admits (their sort keys end in the id): the shards read at once, each a page (a megabyte) per
/// round trip, holding only the ids.
pub async fn ids_where(
    store: &Store,
    shards: Vec<String>,
    sort: Sort,
    keep: impl Fn(&Item) -> bool + Sync,
) -> Result<BTreeSet<i64>, Refusal> {
    Ok(ids_within(store, shards, sort, usize::MAX, keep).await?.0)
}

/// [`ids_where`] reading at most `limit` postings of each shard, and whether one stopped there.
pub async fn ids_within(
    store: &Store,
    shards: Vec<String>,
    sort: Sort,
    limit: usize,
    keep: impl Fn(&Item) -> bool + Sync,
) -> Result<(BTreeSet<i64>, bool), Refusal> {
    let keep = &keep;
    let reads = shards.into_iter().map(|partition| {
        let range = KeyRange::listing(partition, sort.clone(), false);
        async move {
            let mut ids = Vec::new();
            let stopped = postings::scan(store, &range, limit, |posting| {
                if keep(posting) {
                    ids.extend(item::text(posting, "sk").and_then(postings::id_at_end));
                }
            })
            .await?;
            Ok::<_, Refusal>((ids, stopped))
        }
    });
    let mut found = (BTreeSet::new(), false);
    for (ids, stopped) in futures::future::try_join_all(reads).await? {
        found.0.extend(ids);
        found.1 |= stopped;
    }
    Ok(found)
}

/// The newest `reach` ids that `admits` keeps among the items of `partitions` (the shards of one
/// facet, sort keys ending in the id), reading them newest first, the shards in step: each round
/// reads, at once, a page of every shard that may still hold one of the newest `reach` (not ended,
/// its lowest id read above the `reach`-th newest match known), sized to what is still missing
/// (at `spread` items per match, then at the rate met so far, shared among the shards that have
/// not ended) or to the gap left above that match. A shard with few matches stops where the
/// others found the page: about `reach × spread` items in all, however the matches fall in the
/// shards. None when `budget` items were read without the page.
pub async fn in_step(
    store: &Store,
    partitions: Vec<String>,
    reach: usize,
    spread: f64,
    budget: usize,
    admits: impl Fn(&Item) -> bool,
) -> Result<Option<Vec<i64>>, Refusal> {
    /// One shard: where its next page starts, the lowest id it read, whether it ended.
    struct Walk {
        range: KeyRange,
        start: Option<Item>,
        lowest: i64,
        ended: bool,
    }
    let mut walks: Vec<Walk> = partitions
        .into_iter()
        .map(|partition| Walk {
            range: KeyRange::listing(partition, Sort::All, false),
            start: None,
            lowest: i64::MAX,
            ended: false,
        })
        .collect();
    let (mut found, mut read) = (Vec::<i64>::new(), 0usize);
    loop {
        found.sort_unstable_by_key(|id| Reverse(*id));
        // The reach-th newest match known: a shard read below it has nothing more for the page.
        let floor = found.get(reach.saturating_sub(1)).copied();
        let pending: Vec<usize> = (0..walks.len())
            .filter(|n| !walks[*n].ended && floor.is_none_or(|floor| walks[*n].lowest > floor))
            .collect();
        if pending.is_empty() {
            found.truncate(reach);
            return Ok(Some(found));
        }
        if read >= budget {
            return Ok(None);
        }
        let open = walks.iter().filter(|walk| !walk.ended).count().max(1) as f64;
        let rate = match found.len() {
            0 => spread,
            matched => spread.max(read as f64 / matched as f64),
        };
        let limit = |walk: &Walk| -> usize {
            let wanted = match floor {
                None => (reach - found.len()) as f64 * rate / open,
                Some(floor) => walk.lowest.saturating_sub(floor) as f64 / walks.len() as f64,
            };
            ((wanted * ROUND_MARGIN).ceil() as usize).clamp(1, ROUND_MAX_ITEMS)
        };
        let reads = pending.iter().map(|n| store.page(&walks[*n].range, limit(&walks[*n]), walks[*n].start.clone()));
        let pages = futures::future::try_join_all(reads).await?;
        for (n, page) in pending.into_iter().zip(pages) {
            let walk = &mut walks[n];
            read += page.items.len();
            for entry in &page.items {
                let Some(id) = item::text(entry, "sk").and_then(keys::id_of) else { continue };
                walk.lowest = walk.lowest.min(id);
                if admits(entry) {
                    found.push(id);
                }
            }
            match page.next {
                Some(next) => walk.start = Some(next),
                None => walk.ended = true,
            }
        }
    }
}

/// The page of a list whose postings (sort keys ending in the id) are in `shards`, every one a
/// match, its total from `total` (the counter's): the keys up to the page's end, newest first,
/// the shards in step (`in_step`: about the page's end in all, not the page's end in each shard),
/// then the page's billings. A page within the first `postings::BESIDE_THE_COUNT` entries walks
/// beside the count; a deeper one after it, and not at all past the end. Cost grows with the page
/// number by about one read unit per 90 billings skipped, not with the size of the billings nor
/// with the matches past the page.
pub async fn in_id_order(
    store: &Store,
    account: AccountId,
    shards: Vec<String>,
    total: impl std::future::Future<Output = Result<usize, Refusal>>,
    window: Window,
) -> Result<Listed<Billing>, Refusal> {
    let walk = |end: usize| async move {
        Ok(in_step(store, shards, end, 1.0, usize::MAX, |_| true).await?.unwrap_or_default())
    };
    let (total, ids) = match window.end() <= postings::BESIDE_THE_COUNT {
        true => tokio::try_join!(total, walk(window.end()))?,
        false => {
            let total = total.await?;
            match (ListSize { drawn_from: total, total }).reach(window) {
                Some(end) => (total, walk(end).await?),
                None => return Ok(Listed::new(Vec::new(), total)),
            }
        }
    };
    page_of(store, account, ids, total, window).await
}

/// The page `window` shows of billing ids newest first, read in one batch, with the list's total.
pub async fn page_of(
    store: &Store,
    account: AccountId,
    newest_first: impl IntoIterator<Item = i64>,
    total: usize,
    window: Window,
) -> Result<Listed<Billing>, Refusal> {
    let page: Vec<_> = newest_first
        .into_iter()
        .skip(window.skip)
        .take(window.take)
        .map(|id| records::key_of::<Billing>(account, BillingId::new(id)))
        .collect();
    let records = store.batch_get(&page).await?.into_iter().map(records::read).collect::<Result<Vec<_>, _>>()?;
    Ok(Listed::new(records, total))
}

/// The billings a list is drawn from (whose entries a walk reads) and those it shows, as the
/// counts say.
#[derive(Clone, Copy, Debug)]
pub struct ListSize {
    pub drawn_from: usize,
    pub total: usize,
}

impl ListSize {
    /// How many of the list's newest matches a page needs (up to its end): none when it starts
    /// past the list's end.
    pub fn reach(&self, window: Window) -> Option<usize> {
        (window.skip < self.total).then(|| window.end())
    }

    /// How many entries a walk reads for one match, as the counts spread them (at least one).
    pub fn spread(&self) -> f64 {
        self.drawn_from.max(self.total) as f64 / self.total.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_reaches_its_end_unless_it_starts_past_the_list() {
        let size = ListSize { drawn_from: 1_000, total: 100 };
        assert_eq!(size.reach(Window { skip: 50, take: 50 }), Some(100));
        assert_eq!(size.reach(Window { skip: 100, take: 50 }), None);
        assert_eq!(size.spread(), 10.0);
        assert_eq!(ListSize { drawn_from: 0, total: 0 }.spread(), 0.0);
    }
}
