//! A remittance file: its record, the claim of its titles and its finish (the module's text).

use super::*;

/// One title of a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub billing_id: BillingId,
    pub billet_id: BilletId,
    pub instruction: Instruction,
    #[serde(with = "number")]
    pub amount: Money,
}

/// A remittance file as recorded: written whole when claimed, closed when its billets are
/// `remittanced`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Remittance {
    pub id: i64,
    pub account_id: AccountId,
    pub agreement: String,
    /// The file's sequence number for its agreement (NSA).
    pub sequence: i64,
    /// `open` until its billets are `remittanced`, then `closed`.
    pub state: String,
    pub titles: Vec<Entry>,
    #[serde(with = "number")]
    pub total: Money,
    /// Where it is in the bucket.
    pub key: String,
    pub sha256: String,
    pub file: String,
    pub created_at: Timestamp,
    #[serde(default)]
    pub closed_at: Option<Timestamp>,
}

impl Stored for Remittance {
    const KIND: Option<&'static str> = Some("remittance");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::bank_file::remittance(self.account_id, self.id)
    }
}

const OPEN: &str = "open";
const CLOSED: &str = "closed";

/// A file made, as the job and the ops CLI report it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Made {
    pub id: i64,
    pub agreement: String,
    pub sequence: i64,
    pub titles: usize,
    pub key: String,
    pub sha256: String,
}

impl From<&Remittance> for Made {
    fn from(r: &Remittance) -> Made {
        Made {
            id: r.id,
            agreement: r.agreement.clone(),
            sequence: r.sequence,
            titles: r.titles.len(),
            key: r.key.clone(),
            sha256: r.sha256.clone(),
        }
    }
}

/// What a claim came to.
pub(super) enum Claimed {
    /// Nothing waits.
    Empty,
    /// Stale instructions dropped, or a race lost: look again.
    Progress,
    File(Box<Remittance>),
}

/// Claims the next file's titles (see the module's text).
pub(super) async fn claim(
    store: &Store,
    account: AccountId,
    agreement: &str,
    bank: &Bank,
    beneficiary: &Beneficiary,
) -> anyhow::Result<Claimed> {
    let range = KeyRange::prefix(
        keys::bank_file::remittance_queue(account, agreement),
        keys::bank_file::REMITTANCE_QUEUED_PREFIX,
        true,
    );
    let queued: Vec<Queued> = stored::read_all(store.page(&range, TITLES_PER_FILE, None).await?.items)?;
    if queued.is_empty() {
        return Ok(Claimed::Empty);
    }
    let (taken, stale) = still_queued(store, account, queued).await?;
    if taken.is_empty() {
        store.delete_all(stale).await?;
        return Ok(Claimed::Progress);
    }
    let (id, sequence) = tokio::try_join!(
        store.next_id(keys::account(account), keys::sequence("REMITTANCE")),
        store.next_id(keys::account(account), keys::bank_file::remittance_sequence(agreement)),
    )?;
    let mut titles = Vec::with_capacity(taken.len());
    let mut entries = Vec::with_capacity(taken.len());
    let mut writes = Vec::with_capacity(taken.len() + 2);
    for (q, billet, billing) in &taken {
        titles.push(title(billet, billing, q.instruction, bank, &beneficiary.agreement)?);
        entries.push(Entry {
            billing_id: billet.billing_id,
            billet_id: billet.id,
            instruction: q.instruction,
            amount: billet.amount,
        });
        match q.instruction {
            Instruction::Register => {
                let next = BankBillet { remittance_id: Some(id), ..billet.moved_to(BilletStatus::Remitting) };
                writes.push(billet.replace_with(account, &next)?);
            }
            Instruction::WriteOff => writes.push(stored::delete_if(q, (), Condition::present())),
        }
    }
    let remittance = remittance_of(account, agreement, bank, beneficiary, (id, sequence), &titles, entries);
    let (open_pk, open_sk) = keys::bank_file::open_remittance(account, id);
    writes.push(stored::insert(&remittance, ())?);
    writes.push(Write::put_keys(open_pk, open_sk));
    match store.write(writes).await {
        Ok(()) => {}
        // Another run took some of them first, or a billet changed: look again.
        Err(StoreError::ConditionFailed(_)) => return Ok(Claimed::Progress),
        Err(error) => return Err(error.into()),
    }
    if !stale.is_empty() {
        store.delete_all(stale).await?;
    }
    Ok(Claimed::File(Box::new(remittance)))
}

/// The queued instructions whose billet still asks for them (a registration of a billet still
/// pending and in no file, any write-off), with their billets and billings; and the keys of the
/// others, to drop.
async fn still_queued(
    store: &Store,
    account: AccountId,
    queued: Vec<Queued>,
) -> anyhow::Result<(Vec<(Queued, BankBillet, Billing)>, Vec<Key>)> {
    let billet_keys: Vec<Key> =
        queued.iter().map(|q| keys::billet::billet(account, q.billing_id, q.billet_id)).collect();
    let billing_ids: Vec<BillingId> = queued.iter().map(|q| q.billing_id).collect();
    let (billets, billings) = tokio::try_join!(
        stored::find_many::<BankBillet>(store, &billet_keys),
        records::find_many::<Billing>(store, account, &billing_ids),
    )?;
    let billets: HashMap<BilletId, BankBillet> = billets.into_iter().map(|b| (b.id, b)).collect();
    let billings: HashMap<BillingId, Billing> = billings.into_iter().map(|b| (b.id, b)).collect();
    let mut taken = Vec::new();
    let mut stale = Vec::new();
    for q in queued {
        let billet = billets.get(&q.billet_id);
        let billing = billings.get(&q.billing_id);
        match (q.instruction, billet, billing) {
            (Instruction::Register, Some(b), Some(g))
                if b.status == BilletStatus::PendingRemittance && b.remittance_id.is_none() =>
            {
                taken.push((q, b.clone(), g.clone()))
            }
            (Instruction::WriteOff, Some(b), Some(g)) => taken.push((q, b.clone(), g.clone())),
            _ => stale.push(q.key(())),
        }
    }
    Ok((taken, stale))
}

/// The remittance record of these titles: the file written, its key in the bucket and digest.
fn remittance_of(
    account: AccountId,
    agreement: &str,
    bank: &Bank,
    beneficiary: &Beneficiary,
    (id, sequence): (i64, i64),
    titles: &[Title],
    entries: Vec<Entry>,
) -> Remittance {
    let now = Timestamp::now();
    let file = file_of(bank, beneficiary, titles, u32::try_from(sequence % 1_000_000).unwrap_or(0), local(now));
    let total = entries.iter().fold(Money::ZERO, |sum, e| sum + e.amount);
    Remittance {
        id,
        account_id: account,
        agreement: agreement.to_owned(),
        sequence,
        state: OPEN.into(),
        titles: entries,
        total,
        key: format!("{}{account}/{}/{sequence:06}-{id}.rem", files::REMITTANCES, files::slug(agreement)),
        sha256: hex::encode(Sha256::digest(file.as_bytes())),
        file,
        created_at: now,
        closed_at: None,
    }
}

/// The file's time as the bank reads it (São Paulo).
fn local(at: Timestamp) -> NaiveDateTime {
    at.0.naive_local()
}

/// A billet and its billing as a title of the file.
fn title(
    billet: &BankBillet,
    billing: &Billing,
    instruction: Instruction,
    bank: &Bank,
    agreement: &Agreement,
) -> anyhow::Result<Title> {
    let our_number = bank
        .rules
        .our_number(agreement, billet.our_sequential_number)
        .with_context(|| format!("billet {}: our number out of the agreement's range", billet.id))?;
    // As the service computes them (`billings::compute`), in reais.
    let terms = billing.terms();
    let penalty = Money::new(compute::penalty(&terms));
    let interest_per_day = Money::new(compute::interest_per_day(&terms)).cents();
    let payer = &billet.payer;
    Ok(Title {
        movement: instruction.movement(),
        our_number,
        document_number: billing.code.clone(),
        due_date: billet.due_date,
        amount: billet.amount,
        issued_on: billet.created_at.date(),
        interest_per_day,
        penalty,
        payer: cnab::Payer {
            document: payer.payer_document.clone(),
            name: payer.payer_full_name.clone(),
            street: payer.payer_address_street.clone(),
            district: payer.payer_address_district.clone(),
            postal_code: payer.payer_address_postal_code.clone(),
            city: payer.payer_address_city.clone(),
            state: payer.payer_address_state.clone(),
        },
        reference: reference(billet.billing_id, billet.id),
    })
}

/// Writes the file, marks its billets `remittanced` and closes it; each step can be run again.
pub(super) async fn finish(store: &Store, files: &Files, remittance: Remittance) -> anyhow::Result<Made> {
    let account = remittance.account_id;
    let registered: Vec<&Entry> = remittance.titles.iter().filter(|e| e.instruction == Instruction::Register).collect();
    // The queue items of the billets it registers (the claim's transaction had no room for them).
    let queue_pk = keys::bank_file::remittance_queue(account, &remittance.agreement);
    let done: Vec<Key> = registered
        .iter()
        .map(|e| {
            (
                queue_pk.clone(),
                keys::bank_file::remittance_queued(e.billing_id, e.billet_id, Instruction::Register.word()),
            )
        })
        .collect();
    store.delete_all(done).await?;
    files.put(&remittance.key, remittance.file.as_bytes()).await?;
    let on = remittance.created_at.date();
    let marks = futures::stream::iter(registered)
        .map(|entry| remitted(store, account, entry, remittance.id, on))
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await;
    marks.into_iter().collect::<anyhow::Result<Vec<()>>>()?;
    let closed = Remittance { state: CLOSED.into(), closed_at: Some(Timestamp::now()), ..remittance.clone() };
    let (open_pk, open_sk) = keys::bank_file::open_remittance(account, remittance.id);
    let close = vec![stored::put_if(&closed, (), Condition::equals("state", OPEN))?, Write::delete(open_pk, open_sk)];
    match store.write(close).await {
        Ok(()) | Err(StoreError::ConditionFailed(_)) => {}
        Err(error) => return Err(error.into()),
    }
    tracing::info!(account = %account, remittance = remittance.id, key = %remittance.key, titles = remittance.titles.len(), "remittance file written");
    Ok(Made::from(&remittance))
}

/// One billet of the file `remittanced`, if it is still `remitting` in it.
async fn remitted(
    store: &Store,
    account: AccountId,
    entry: &Entry,
    remittance: i64,
    on: chrono::NaiveDate,
) -> anyhow::Result<()> {
    for _ in 0..5 {
        let found = crate::billets::model::find(store, account, entry.billing_id, entry.billet_id).await?;
        let Some(billet) = found.filter(|b| b.status == BilletStatus::Remitting && b.remittance_id == Some(remittance))
        else {
            return Ok(());
        };
        let mut next = billet.moved_to(BilletStatus::Remittanced);
        next.registered.remittanced_at = Some(on);
        next.registered.provider_status = Some("REMESSA GERADA".into());
        match store.write(vec![billet.replace_with(account, &next)?]).await {
            Ok(()) => return Ok(()),
            Err(StoreError::ConditionFailed(_)) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    anyhow::bail!("billet {} kept changing while it was marked remittanced", entry.billet_id)
}

/// An account's files, newest first (at most `limit`).
pub async fn list(store: &Store, account: AccountId, limit: usize) -> anyhow::Result<Vec<Remittance>> {
    let range = KeyRange::prefix(keys::bank_file::remittances(account), keys::bank_file::REMITTANCE_PREFIX, false);
    Ok(stored::read_all(store.page(&range, limit, None).await?.items)?)
}
