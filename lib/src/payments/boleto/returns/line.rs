//! One title of a return file applied to its billet and billing, or kept with why (the module's
//! text).

use super::*;

/// Why a return line names no billet of this service, naming the title's our number (what the
/// bank and the account know it by: `our_number` with its check digit) and the reference the line
/// carried, if any.
fn not_ours(our_number: &str, reference: &str) -> String {
    match reference.trim() {
        "" => {
            format!("nosso número {our_number} não encontrado: a linha não traz referência de um boleto deste serviço")
        }
        reference => {
            format!(
                "nosso número {our_number} não encontrado: referência {reference:?} não é de um boleto deste serviço"
            )
        }
    }
}

/// Applies one title; `None` when an earlier upload of the file had applied it.
pub(super) async fn apply_line(
    store: &Store,
    account: AccountId,
    sha256: &str,
    bank: &'static Bank,
    title: &Returned,
) -> anyhow::Result<Option<Outcome>> {
    let key = keys::bank_file::return_line(account, sha256, title.line);
    if store.get(key.0.clone(), key.1.clone()).await?.is_some() {
        return Ok(None);
    }
    let mut line = Line {
        account_id: account,
        sha256: sha256.to_owned(),
        line: title.line,
        movement: title.movement.clone(),
        our_number: format!("{}{}", title.our_number, title.our_number_dv),
        reference: title.reference.clone(),
        billing_id: None,
        billet_id: None,
        amount: title.amount,
        paid_amount: title.paid_amount,
        outcome: Outcome::NotApplied,
        note: String::new(),
        applied_at: Timestamp::now(),
    };
    let Some((billing_id, billet_id)) = referenced(&title.reference) else {
        line.note = not_ours(&line.our_number, &title.reference);
        return keep(store, line).await;
    };
    line.billing_id = Some(billing_id);
    line.billet_id = Some(billet_id);
    let read_status = match billet_of_line(store, account, bank, title, billing_id, billet_id).await? {
        Ok(status) => status,
        Err(note) => return keep(store, Line { note, ..line }).await,
    };
    let step = Step { store, account, bank, title, billing_id, billet_id, read_status, key: &key, line: &line };
    let outcome = change(store, account, billing_id, |billing, current| step.rule(billing, current)).await;
    match outcome {
        Ok((_, None)) => Ok(None),
        Ok((_, Some((Outcome::Applied, _, _)))) => Ok(Some(Outcome::Applied)),
        Ok((_, Some((outcome, note, None)))) => keep(store, Line { outcome, note, ..line }).await,
        Ok((_, Some((outcome, note, Some(payment))))) => {
            // Money the billing does not take: kept to refund with the line, in one transaction.
            let kept = stored::insert(&Line { outcome, note: note.clone(), ..line.clone() }, ())?;
            match payments::keep(store, account, billing_id, &payment, &note, vec![kept]).await? {
                payments::Applied::ToRefund(_) => Ok(Some(outcome)),
                // Kept by another file first: the line alone, unchanged.
                _ => {
                    let note = "pagamento já registrado (outro arquivo)".to_owned();
                    keep(store, Line { outcome: Outcome::Unchanged, note, ..line }).await
                }
            }
        }
        Err(Refusal::NotFound) => {
            line.note = format!("nenhuma cobrança {billing_id}");
            keep(store, line).await
        }
        Err(error) => Err(anyhow::Error::new(error).context(format!("return line {}", title.line))),
    }
}

/// The status of the billet a line's reference names, when it is this file's bank's and its our
/// number is the one the line carries; else why the line is not applied.
async fn billet_of_line(
    store: &Store,
    account: AccountId,
    bank: &'static Bank,
    title: &Returned,
    billing_id: BillingId,
    billet_id: BilletId,
) -> anyhow::Result<Result<BilletStatus, String>> {
    let Some(ours) = crate::billets::model::find(store, account, billing_id, billet_id).await? else {
        return Ok(Err(format!("nenhum boleto {billet_id} na cobrança {billing_id}")));
    };
    // A file's bank and width name one layout (`banks::by_code`): the billet's must be that one.
    let Some(ours_bank) = banks::by_symbol(&ours.bank_symbol).filter(|b| b.symbol == bank.symbol) else {
        return Ok(Err(format!(
            "o boleto {billet_id} é do banco {:?}, não do layout deste arquivo ({} CNAB {})",
            ours.bank_symbol,
            bank.code,
            bank.width()
        )));
    };
    let agreement = ours.agreement_code.as_deref().and_then(|a| ours_bank.agreement(a));
    let echoes = agreement.as_ref().is_some_and(|a| {
        ours_bank
            .rules
            .our_number(a, ours.our_sequential_number)
            .is_some_and(|expected| ours_bank.echoes(a, &expected, &title.our_number))
    });
    match echoes {
        true => Ok(Ok(ours.status)),
        false => Ok(Err(format!("nosso número {} não é o do boleto {billet_id}", title.our_number))),
    }
}

/// One line's change of its billing, as `change` runs it (again on a conflict).
struct Step<'a> {
    store: &'a Store,
    account: AccountId,
    bank: &'static Bank,
    title: &'a Returned,
    billing_id: BillingId,
    billet_id: BilletId,
    /// The billet's status as read before the change (what a re-issue replaced).
    read_status: BilletStatus,
    key: &'a (String, String),
    line: &'a Line,
}

type Rule = Result<Ruled<Option<Kept>>, Refusal>;

impl Step<'_> {
    /// What the line does to `billing` and its `current` billet.
    async fn rule(&self, billing: Billing, current: Option<BankBillet>) -> Rule {
        // A concurrent upload of the same file applied it meanwhile.
        if self.store.get(self.key.0.clone(), self.key.1.clone()).await?.is_some() {
            return Ok(Ruled::Unchanged(None));
        }
        if self.title.happened == Happened::Paid {
            return self.paid(billing, current).await;
        }
        let Some(billet) = current.filter(|b| b.id == self.billet_id) else {
            // Replaced by a re-issue: as it was read before.
            let note = format!("boleto substituído ({})", self.read_status);
            return Ok(Ruled::Unchanged(Some((Outcome::Unchanged, note, None))));
        };
        let status = billet.status;
        let waiting = matches!(status, BilletStatus::Remitting | BilletStatus::Remittanced);
        let keep = |outcome: Outcome, note: String| Ok(Ruled::Unchanged(Some((outcome, note, None))));
        let moved = |to: BankBillet, note: &str| self.moved(billing.clone(), &billet, to, note);
        let with_status = |status: BilletStatus, provider: &str| {
            let mut to = billet.moved_to(status);
            to.registered.provider_status = Some(provider.into());
            to
        };
        match self.title.happened {
            Happened::Registered if waiting => {
                moved(with_status(BilletStatus::Opened, "ENTRADA CONFIRMADA"), "entrada confirmada")
            }
            Happened::Registered => keep(Outcome::Unchanged, format!("entrada confirmada; o boleto já está {status}")),
            Happened::Refused if waiting => {
                let mut to = with_status(BilletStatus::Rejected, "ENTRADA REJEITADA");
                to.registered.bank_rejection = Some(self.bank.rejection(&self.title.reasons));
                moved(to, "entrada rejeitada")
            }
            Happened::Refused => keep(Outcome::NotApplied, format!("entrada rejeitada, mas o boleto já está {status}")),
            Happened::Paid => self.paid(billing, Some(billet)).await,
            Happened::WrittenOff
                if matches!(status, BilletStatus::Remittanced | BilletStatus::Opened | BilletStatus::Protested) =>
            {
                moved(with_status(BilletStatus::Canceled, "BAIXADO PELO BANCO"), "baixado pelo banco")
            }
            Happened::WrittenOff => keep(Outcome::Unchanged, format!("baixa confirmada; o boleto está {status}")),
            Happened::Protested if matches!(status, BilletStatus::Remittanced | BilletStatus::Opened) => {
                moved(with_status(BilletStatus::Protested, "ENVIADO A CARTÓRIO"), "enviado a cartório para protesto")
            }
            Happened::Protested => keep(Outcome::Unchanged, format!("enviado a cartório; o boleto está {status}")),
            Happened::Other => {
                keep(Outcome::NotApplied, format!("movimento {} não é tratado por este serviço", self.title.movement))
            }
        }
    }

    /// A payment: the one decision of every payment (`payments::decision`): applied once (the same
    /// payment from another file is recognised), or kept to refund when the billing cannot take it.
    async fn paid(&self, billing: Billing, current: Option<BankBillet>) -> Rule {
        let keep = |outcome: Outcome, note: String| Ok(Ruled::Unchanged(Some((outcome, note, None))));
        let payment = paid_by(self.title, self.billing_id, self.billet_id);
        if payment.fee > payment.amount {
            return keep(Outcome::NotApplied, format!("tarifa {} maior que o valor pago", self.title.fee));
        }
        match payments::decision(self.store, self.account, billing.clone(), current.as_ref(), &payment).await? {
            payments::Decided::Already(_) => {
                keep(Outcome::Unchanged, "pagamento já registrado (outro arquivo)".to_owned())
            }
            payments::Decided::Settles { next, billet, also } => self.written(*next, billet, "liquidação", also),
            payments::Decided::ToRefund(_) => {
                let now = match current.filter(|b| b.id == self.billet_id) {
                    // Replaced by a re-issue: as it was read before.
                    None => format!("o boleto foi substituído ({})", self.read_status),
                    Some(billet) => format!("o boleto está {} e a cobrança {}", billet.status, billing.status),
                };
                let note = format!("pago no banco, mas {now}: devolver ao pagador ou baixar a cobrança à mão");
                Ok(Ruled::Unchanged(Some(to_refund(note, payment))))
            }
        }
    }

    /// The billet moved `from` → `to` and the billing as `next`, with the line in the ledger.
    fn moved(&self, next: Billing, from: &BankBillet, to: BankBillet, note: &str) -> Rule {
        self.written(next, Some(BilletWrite::Moved { from: from.clone(), to }), note, Vec::new())
    }

    /// The billing as `next` and its billet as `billet` writes it, with the line in the ledger and
    /// `also`.
    fn written(
        &self,
        next: Billing,
        billet: Option<BilletWrite>,
        note: &str,
        mut also: Vec<crate::store::Write>,
    ) -> Rule {
        let applied = Line { outcome: Outcome::Applied, note: note.to_owned(), ..self.line.clone() };
        also.push(stored::insert(&applied, ())?);
        Ok(Ruled::Changed { next, billet, also, announce: true, then: Some((Outcome::Applied, note.to_owned(), None)) })
    }
}

/// Writes a line that changed nothing into the ledger (`None`: an earlier upload's is there).
async fn keep(store: &Store, line: Line) -> anyhow::Result<Option<Outcome>> {
    let outcome = line.outcome;
    match store.write(vec![stored::insert(&line, ()).context("a ledger line")?]).await {
        Ok(()) => Ok(Some(outcome)),
        Err(error) if error.failed_at(0) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// What a line kept says (`Outcome`, note) and the payment it reports when the billing does not
/// take it: kept to refund.
type Kept = (Outcome, String, Option<payments::Payment>);

/// A payment line the billing does not take: not applied, its payment kept to refund.
fn to_refund(note: String, payment: payments::Payment) -> Kept {
    (Outcome::NotApplied, note, Some(payment))
}

/// The payment a paid title reports (06) of billet `billet` of billing `billing`: the paid amount
/// (the title's amount when the bank leaves it blank) on the day it occurred, the fee, and the
/// credit day and net amount when the bank gives them.
fn paid_by(title: &Returned, billing: BillingId, billet: BilletId) -> payments::Payment {
    let reported = bank::Reported {
        amount: if title.paid_amount.is_positive() { title.paid_amount } else { title.amount },
        paid_on: title.occurred_on.unwrap_or_else(crate::values::today),
        fee: title.fee,
    };
    let mut payment = bank::payment(billing, billet, &reported);
    if let Some(credit) = title.credit_on {
        payment.credit_on = credit;
    }
    if title.net_amount.is_positive() {
        payment.net_amount = title.net_amount;
    }
    payment
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_not_ours_names_its_our_number() {
        assert_eq!(
            not_ours("123456781", "   "),
            "nosso número 123456781 não encontrado: a linha não traz referência de um boleto deste serviço"
        );
        assert!(not_ours("123456781", "XYZ").contains("nosso número 123456781 não encontrado: referência \"XYZ\""));
    }
}
