//! Deleting a billing: only a `schedule` record may be (deleted, it issues no further cycle: its
//! issuing index entry goes with its key entry); the records it used stop counting
//! it; its Pix Automático recurrence is cancelled at the PSP by a task written with it.

use crate::billings::links;
use crate::billings::model::Billing;
use crate::contention::retry_in_turn;
use crate::editing::find_or_404;
use crate::jobs::{tasks, Automatic, PixCharge};
use crate::refusal::{Code, Problem, Refusal};
use crate::store::records;
use crate::store::Store;
use crate::values::{AccountId, BillingId, BillingType};

/// `DELETE /v1/billings/{id}`: only `schedule` records; a billing from the API can only be
/// cancelled (422). The records it used stop counting it.
pub async fn delete(store: &Store, account: AccountId, id: BillingId) -> Result<(), Refusal> {
    retry_in_turn(records::key_of::<Billing>(account, id), || async {
        let current: Billing = find_or_404(store, account, id).await?;
        if current.billing_type != BillingType::Schedule {
            let message = "Somente cobranças recorrentes (schedule) podem ser excluídas; cancele a cobrança";
            return Err(Refusal::invalid(Problem::general(Code::NotAllowed, message)));
        }
        let mut also = links::reference_writes(account, Some(&current), None);
        // Its Pix Automático recurrence, if any, cancelled at the PSP (the Pix charges worker).
        let stop = PixCharge {
            account_id: account,
            billing_id: id,
            secret_id: String::new(),
            automatic: Some(Automatic::Stop),
        };
        also.push(tasks::one(account, stop)?);
        records::remove(store, account, &current, also).await?;
        Ok(())
    })
    .await
}
