//! A billing's Pix charge at its bank rule's PSP: one `cobv` per billing, whose txid is derived
//! from the account and the billing ([`txid`]), so that the registration of any of its billets
//! (a retry, a re-issue) names the same charge:
//!
//! - the first billet's registration makes it (`PUT /cobv/{txid}`; a `PUT` the PSP refuses
//!   because the txid is taken, as one retried after a lost answer is, becomes a `PATCH` of the
//!   same terms);
//! - a re-issue's billet (a due-date or amount change, a new payer) revises it (`PATCH`: new
//!   `calendario`, `valor`, `devedor`), so the code a payer holds asks what the billing asks now;
//! - a billing that stops being payable here (cancelled, paid off, paid by boleto or by another
//!   channel) removes it (`PATCH` `status: REMOVIDA_PELO_USUARIO_RECEBEDOR`), through the Pix
//!   charges queue ([`crate::jobs::PixCharge`]), asked for in the change's own transaction
//!   ([`removed`], `payments::withdrawals`).

use serde_json::{json, Value};

use super::cobv;
use super::psp::{self, Cobv, Psp, PspError};
use crate::billets::model::{BankBillet, BilletStatus};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::compute;
use crate::billings::model::Billing;
use crate::payments::ledger::Channel;
use crate::refusal::Problem;
use crate::values::BillingStatus;
use crate::values::{AccountId, BillingId};

/// The status a charge removed by its receiver takes.
pub const REMOVED: &str = "REMOVIDA_PELO_USUARIO_RECEBEDOR";

/// The billing's charge's txid: `CB`, the account (10 digits), `B`, the billing (16 digits): 29
/// letters and digits, within the standard's 26 to 35.
pub fn txid(account: AccountId, billing: BillingId) -> String {
    format!("CB{:010}B{:016}", account.get(), billing.get())
}

/// The account and billing a txid of ours names (a billing's charge, or a cycle's Pix Automático
/// debit, `CR…`); none for any other txid.
pub fn parse_txid(txid: &str) -> Option<(AccountId, BillingId)> {
    let rest = txid.strip_prefix("CB").or_else(|| txid.strip_prefix("CR"))?;
    let (account, billing) = rest.split_once('B')?;
    let digits = |text: &str, len: usize| text.len() == len && text.bytes().all(|b| b.is_ascii_digit());
    if !digits(account, 10) || !digits(billing, 16) {
        return None;
    }
    let account = account.parse::<i64>().ok().filter(|id| *id > 0)?;
    let billing = billing.parse::<i64>().ok().filter(|id| *id > 0)?;
    Some((AccountId::new(account), BillingId::new(billing)))
}

/// Why these terms have no Pix charge, if they have none (the 422 of a create or update on a
/// rule with a PSP).
pub fn refused(terms: &compute::Terms) -> Option<Vec<Problem>> {
    cobv::valor(terms).err()
}

/// The body of the charge of `billet` (the billing's current billet) to `pix_key`.
pub fn body(billing: &Billing, billet: &BankBillet, pix_key: &str) -> Result<Value, Vec<Problem>> {
    let terms = compute::Terms { amount: billet.amount.get(), due_date: billet.due_date, ..billing.terms() };
    let valor = cobv::valor(&terms)?;
    let last = compute::return_date(billet.due_date, billing.devolution(), billing.instruction_days);
    let calendario = cobv::calendario(billet.due_date, last);
    let payer = &billet.payer;
    let document: String = payer.payer_document.chars().filter(char::is_ascii_digit).collect();
    let name: String = payer.payer_full_name.chars().take(200).collect();
    let devedor = match document.len() {
        14 => json!({ "cnpj": document, "nome": name }),
        _ => json!({ "cpf": document, "nome": name }),
    };
    Ok(json!({
        "calendario": calendario,
        "devedor": devedor,
        "valor": valor,
        "chave": pix_key,
        "solicitacaoPagador": format!("Cobrança {}", billing.id),
    }))
}

/// Makes or revises the billing's charge with `body`: a `PUT`, or a `PATCH` when the billing had
/// a billet before (a re-issue) or the PSP answers that the txid is taken; a revision the PSP does
/// not know the charge of (the billet before never got one: it was refused) is a `PUT`. Before a
/// `PATCH` the charge is read: one that carries these terms already (this very call, made before
/// and its answer lost, or its registration's message delivered twice) is kept as it is, so a retry
/// never adds a revision.
pub async fn make(psp: &Psp, txid: &str, body: &Value, revision: bool) -> Result<Cobv, PspError> {
    if !revision {
        match psp.put_cobv(txid, body).await {
            Err(PspError::Refused { status: 400 | 409, .. }) => {}
            answer => return answer,
        }
    }
    let mut patch = body.clone();
    // The key cannot change in a revision.
    if let Some(fields) = patch.as_object_mut() {
        fields.remove("chave");
    }
    match psp.cobv(txid).await {
        Ok(current) if current.status == "ATIVA" && carries(&Value::Object(current.terms.clone()), &patch) => {
            return Ok(current)
        }
        Ok(_) => {}
        Err(PspError::Refused { status: 404, .. }) if revision => return psp.put_cobv(txid, body).await,
        Err(PspError::Refused { status: 404, .. }) => {}
        Err(other) => return Err(other),
    }
    psp.patch_cobv(txid, &patch).await
}

/// Whether `held` (a charge as the PSP answers it) holds every field of `asked` with its value.
fn carries(held: &Value, asked: &Value) -> bool {
    match (held, asked) {
        (Value::Object(held), Value::Object(asked)) => {
            asked.iter().all(|(name, value)| held.get(name).is_some_and(|h| carries(h, value)))
        }
        _ => held == asked,
    }
}

/// Removes the charge; a charge already paid, removed or unknown to the PSP is left as it is.
pub async fn remove(psp: &Psp, txid: &str) -> Result<Option<Cobv>, PspError> {
    match psp.patch_cobv(txid, &json!({ "status": REMOVED })).await {
        Ok(cobv) => Ok(Some(cobv)),
        Err(PspError::Refused { status: 400 | 404 | 409, detail }) => {
            tracing::info!(txid, detail, "the PSP kept the charge as it was (paid, removed or unknown)");
            Ok(None)
        }
        Err(other) => Err(other),
    }
}

/// The secret of the PSP whose charge a billet's change removes, if it removes one: when the
/// billet closes (`canceled`, `discharged`, or `paid` through another channel) and the billing
/// does not go on with the same PSP's charge (a re-issue on a rule of the same PSP revises it
/// instead: the new billet's registration does); `payments::withdrawals` asks for its removal.
pub fn removed(account: AccountId, next: &Billing, write: &BilletWrite) -> Option<String> {
    let BilletWrite::Moved { from, to } = write else { return None };
    let secret_id = to.pix_psp.clone()?;
    let closed = match to.status {
        BilletStatus::Canceled | BilletStatus::Discharged => true,
        BilletStatus::Paid => to.paid_with.as_deref() != Some(Channel::Pix.as_str()),
        _ => false,
    };
    let goes_on = next.status == BillingStatus::Opened
        && next.bank_rule_id.is_some_and(|rule| psp::secret_id(account, rule) == secret_id);
    (closed && from.status != to.status && !goes_on).then_some(secret_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_txid_names_its_account_and_billing_and_nothing_else_parses() {
        let id = txid(AccountId::new(42), BillingId::new(9_876_543));
        assert_eq!(id, "CB0000000042B0000000009876543");
        assert!((26..=35).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_eq!(parse_txid(&id), Some((AccountId::new(42), BillingId::new(9_876_543))));
        for other in [
            "",
            "CB42B1",
            "XX0000000042B0000000009876543",
            "CB0000000000B0000000009876543",
            "CB000000004aB0000000009876543",
        ] {
            assert_eq!(parse_txid(other), None, "{other}");
        }
    }

    #[test]
    fn a_charge_carries_the_terms_it_holds_whatever_else_it_has() {
        let held = json!({"calendario": {"criacao": "2026-11-28T13:22:22Z", "dataDeVencimento": "2030-04-01"},
            "valor": {"original": "25.00"}, "revisao": 1, "status": "ATIVA"});
        assert!(carries(
            &held,
            &json!({"calendario": {"dataDeVencimento": "2030-04-01"}, "valor": {"original": "25.00"}})
        ));
        assert!(!carries(&held, &json!({"calendario": {"dataDeVencimento": "2030-05-01"}})));
        assert!(!carries(&held, &json!({"valor": {"original": "25.00", "multa": {"modalidade": 2}}})));
        assert!(!carries(&held, &json!({"devedor": {"cpf": "52998224725"}})));
    }
}
