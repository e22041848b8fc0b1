//! What happens to a sale: recorded (with the on-account rule), paid off by receipts, given back.
//! Each writes the sale, its customer's balances and a `sale.updated` event in one transaction.

use super::input::{check_amount, paid_with, SaleDraft, MSG_CUSTOMER_NOT_FOUND};
use super::model::{code_for, id_of_code, Receipt, Sale, SaleReturn};
use crate::contacts::Contact;
use crate::contention::retry_in_turn;
use crate::pos::credits::Movement;
use crate::pos::rule;
use crate::refusal::{Code, Problem, Refusal};
use crate::store::stored;
use crate::store::{keys, records, Store, StoreResult, Write};
use crate::values::{
    AccountId, ContactId, ContactType, CreditMovementKind, Money, PaymentKind, RefundTo, SaleId, Timestamp,
};

pub const MSG_SALE_NOT_FOUND: &str = "Venda não encontrada";
pub(super) const SALES_COUNTER: &str = "SALES";

/// A sale code that names no sale of the account.
fn sale_not_found() -> Refusal {
    Refusal::invalid(Problem::not_found("code", MSG_SALE_NOT_FOUND))
}

/// The contact a sale names, which must be a customer of the account.
async fn customer(store: &Store, account: AccountId, id: ContactId) -> Result<Contact, Refusal> {
    match records::find::<Contact>(store, account, id).await? {
        Some(contact) if contact.contact_type == ContactType::Customer => Ok(contact),
        Some(_) => {
            let message = "Vendas são feitas a clientes (contact_type customer)";
            Err(Refusal::invalid(Problem::at("contact_id", Code::NotAllowed, message)))
        }
        None => Err(Refusal::invalid(Problem::not_found("contact_id", MSG_CUSTOMER_NOT_FOUND))),
    }
}

/// Records a sale (`infra/ops sale create`), applying the on-account rule to its on-account part
/// and to the credit it spends.
pub async fn create(store: &Store, account: AccountId, draft: &SaleDraft) -> Result<Sale, Refusal> {
    let checked = draft.check()?;
    let on_account = paid_with(&checked.payments, PaymentKind::OnAccount);
    let credit = paid_with(&checked.payments, PaymentKind::StoreCredit);
    let admitted = |contact: Contact| async move {
        if on_account.is_positive() || credit.is_positive() {
            if !rule::allowed(store, account, &contact).await? {
                let message =
                    if on_account.is_positive() { rule::MSG_ON_ACCOUNT_REFUSED } else { rule::MSG_CREDIT_REFUSED };
                return Err(Refusal::invalid(Problem::general(Code::NotAllowed, message)));
            }
            rule::within_limit(&contact, on_account)?;
            rule::enough_credit(&contact, credit)?;
        }
        Ok(contact)
    };
    // Refused before a number is taken, so refusals leave no gaps in the receipts' codes; checked
    // again on the contact the transaction writes.
    admitted(customer(store, account, checked.contact_id).await?).await?;
    let id = SaleId::new(store.next_id(keys::account(account), keys::sequence("SALE")).await?);
    retry_in_turn(records::key_of::<Contact>(account, checked.contact_id), || async {
        let contact = admitted(customer(store, account, checked.contact_id).await?).await?;
        let now = Timestamp::now();
        let sale = Sale {
            id,
            code: code_for(id),
            account_id: account,
            contact_id: contact.id,
            sold_at: now,
            items: checked.items.clone(),
            payments: checked.payments.clone(),
            receipts: Vec::new(),
            returns: Vec::new(),
            total: checked.total,
            on_account_amount: on_account,
            due_amount: on_account,
            returned_amount: Money::ZERO,
            settled_amount: Money::ZERO,
            settlement_reference: None,
            created_at: now,
            updated_at: now,
            version: 1,
            list_fields: None,
        }
        .indexed();
        let mut next = Contact { version: contact.version + 1, sales: contact.sales + 1, ..contact.clone() };
        next.on_account_balance = next.on_account_balance + on_account;
        let sale_key = keys::pos::sale_key(now.0.timestamp_millis(), id);
        let mut also = vec![
            stored::insert(&sale, ())?,
            Write::put_keys(keys::pos::sales(account), sale_key.clone()),
            Write::put_keys(keys::pos::sales_of_contact(account, contact.id), sale_key),
            Write::add(
                keys::account(account),
                keys::counter::counter(SALES_COUNTER),
                keys::counter::COUNT_ATTRIBUTE,
                1,
            ),
            sale.announced()?,
        ];
        if credit.is_positive() {
            next.credit_balance = next.credit_balance - credit;
            next.credit_movements += 1;
            let movement = Movement {
                sale_code: Some(sale.code.clone()),
                ..Movement::next_of(&next, CreditMovementKind::Used, -credit)
            };
            also.push(movement.insert(account, contact.id)?);
        }
        records::replace(store, account, &contact, &next, also).await?;
        Ok(sale)
    })
    .await
}

/// The account's sale with this code.
pub async fn find(store: &Store, account: AccountId, code: &str) -> StoreResult<Option<Sale>> {
    let Some(id) = id_of_code(code) else { return Ok(None) };
    stored::find(store, (keys::account(account), keys::pos::sale(id))).await
}

async fn found(store: &Store, account: AccountId, code: &str) -> Result<Sale, Refusal> {
    find(store, account, code).await?.ok_or_else(sale_not_found)
}

/// Changes a sale and its customer together: `rule` gets both as they are and gives both as they
/// become, with whatever else goes into the transaction. Writers of one sale take turns; a lost
/// race (the sale or the contact changed) runs it again.
async fn change_with_contact<F>(store: &Store, account: AccountId, code: &str, rule: F) -> Result<Sale, Refusal>
where
    F: Fn(&Sale, &Contact) -> Result<(Sale, Contact, Vec<Write>), Refusal>,
{
    let id = id_of_code(code).ok_or_else(sale_not_found)?;
    retry_in_turn((keys::account(account), keys::pos::sale(id)), || async {
        let sale = found(store, account, code).await?;
        let contact = records::find::<Contact>(store, account, sale.contact_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("sale {code} names a contact that is gone"))?;
        let (next_sale, next_contact, mut also) = rule(&sale, &contact)?;
        also.insert(0, next_sale.replacing(&sale)?);
        also.push(next_sale.announced()?);
        records::replace(store, account, &contact, &next_contact, also).await?;
        Ok(next_sale)
    })
    .await
}

/// A receipt against the sale's open amount (`infra/ops sale receive`); allowed whatever the
/// on-account rule says now (rule 4).
pub async fn receive(
    store: &Store,
    account: AccountId,
    code: &str,
    amount: Money,
    kind: PaymentKind,
) -> Result<Sale, Refusal> {
    let mut errors = Vec::new();
    check_amount("amount", "Valor recebido", amount, &mut errors);
    if matches!(kind, PaymentKind::OnAccount | PaymentKind::StoreCredit) {
        errors.push(Problem::invalid("kind", "Recebimento em dinheiro, cartão ou Pix (cash, card, pix)"));
    }
    if !errors.is_empty() {
        return Err(Refusal::Invalid(errors));
    }
    change_with_contact(store, account, code, |sale, contact| {
        if amount > sale.due_amount {
            let message = format!("Valor recebido maior que o valor em aberto ({})", sale.due_amount);
            return Err(Refusal::invalid(Problem::too_large("amount", message)));
        }
        let next = sale.changed(|s| {
            s.due_amount = s.due_amount - amount;
            s.receipts.push(Receipt { at: Timestamp::now(), kind, amount });
        });
        let mut payer = Contact { version: contact.version + 1, ..contact.clone() };
        payer.on_account_balance = payer.on_account_balance - amount;
        Ok((next, payer, Vec::new()))
    })
    .await
}

/// Gives back `amount` of the sale (`infra/ops sale return`): first off its open amount, the rest
/// refunded in cash or as credit (which needs the on-account rule, rule 5).
pub async fn give_back(
    store: &Store,
    account: AccountId,
    code: &str,
    amount: Money,
    to: RefundTo,
) -> Result<Sale, Refusal> {
    let mut errors = Vec::new();
    check_amount("amount", "Valor devolvido", amount, &mut errors);
    if !errors.is_empty() {
        return Err(Refusal::Invalid(errors));
    }
    let sale = found(store, account, code).await?;
    let refund_as_credit = to == RefundTo::StoreCredit && amount > sale.due_amount;
    if refund_as_credit {
        let contact = customer(store, account, sale.contact_id).await?;
        if !rule::allowed(store, account, &contact).await? {
            return Err(Refusal::invalid(Problem::general(Code::NotAllowed, rule::MSG_CREDIT_REFUSED)));
        }
    }
    change_with_contact(store, account, code, |sale, contact| {
        let returnable = sale.total - sale.returned_amount;
        if amount > returnable {
            let message = format!("Valor devolvido maior que o que resta da venda ({returnable})");
            return Err(Refusal::invalid(Problem::too_large("amount", message)));
        }
        let off_due = amount.min(sale.due_amount);
        let refunded = amount - off_due;
        let next = sale.changed(|s| {
            s.due_amount = s.due_amount - off_due;
            s.returned_amount = s.returned_amount + amount;
            s.returns.push(SaleReturn { at: Timestamp::now(), amount, off_due, refunded, refund_to: to });
        });
        let mut payer = Contact { version: contact.version + 1, ..contact.clone() };
        payer.on_account_balance = payer.on_account_balance - off_due;
        let mut also = Vec::new();
        if to == RefundTo::StoreCredit && refunded.is_positive() {
            payer.credit_balance = payer.credit_balance + refunded;
            payer.credit_movements += 1;
            let movement = Movement {
                sale_code: Some(sale.code.clone()),
                ..Movement::next_of(&payer, CreditMovementKind::Returned, refunded)
            };
            also.push(movement.insert(account, payer.id)?);
        }
        Ok((next, payer, also))
    })
    .await
}
