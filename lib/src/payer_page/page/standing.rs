//! The words the page says of where a billet stands (`billings::standing`).

use crate::billets::printing::text::date;
use crate::billings::standing::Standing;

impl Standing {
    pub(super) fn words(&self) -> (&'static str, String) {
        match self {
            Standing::Payable(_) => ("payable", String::new()),
            Standing::Registering => (
                "waiting",
                "Este boleto está sendo registrado no banco. Volte em alguns minutos para pagá-lo.".to_owned(),
            ),
            Standing::Paid(Some(on)) => ("paid", format!("Este boleto foi pago em {}. Obrigado!", date(*on))),
            Standing::Paid(None) => ("paid", "Este boleto foi pago. Obrigado!".to_owned()),
            Standing::Discharged => {
                ("closed", "Este boleto foi baixado: a cobrança foi quitada de outra forma.".to_owned())
            }
            Standing::Canceled => ("closed", "Este boleto foi cancelado e não deve ser pago.".to_owned()),
            Standing::Replaced => (
                "closed",
                "Este boleto foi substituído por um novo e não deve ser pago. Peça o novo boleto ao beneficiário."
                    .to_owned(),
            ),
            Standing::Expired(until) => (
                "closed",
                format!(
                    "Este boleto venceu e não pode mais ser pago desde {}. Fale com o beneficiário.",
                    date(*until + chrono::Duration::days(1))
                ),
            ),
            Standing::Rejected => (
                "closed",
                "O banco não registrou este boleto; ele não pode ser pago. Fale com o beneficiário.".to_owned(),
            ),
            Standing::CardUnderWay => (
                "waiting",
                "Um pagamento com cartão desta cobrança está em análise. Não pague de novo; esta página mostrará \
                 quando ele for confirmado."
                    .to_owned(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;
    use crate::billets::model::BankBillet;
    use crate::billets::BilletStatus;
    use crate::billings::model::tests as billing_samples;
    use crate::payer_page::page::render;
    use crate::payer_page::page::tests::payable_billet;
    use crate::values::BillingStatus;

    #[test]
    fn the_standing_follows_the_billet_and_its_billing() {
        let today: NaiveDate = "2026-12-05".parse().unwrap();
        let mut billet = payable_billet();
        let mut billing = billing_samples::sample();
        billing.status = BillingStatus::Opened;
        billing.billet_id = Some(billet.id);
        billing.due_date = billet.due_date;
        billing.amount = billet.amount;
        assert!(matches!(Standing::of(&billet, &billing, today), Standing::Payable(_)));
        billet.status = BilletStatus::Canceled;
        assert_eq!(Standing::of(&billet, &billing, today), Standing::Canceled);
        billing.billet_id = Some(crate::values::BilletId::new(99));
        assert_eq!(Standing::of(&billet, &billing, today), Standing::Replaced);
        billet.status = BilletStatus::Remitting;
        assert_eq!(Standing::of(&billet, &billing, today), Standing::Registering);
        // A billet waiting for its remittance with a Pix charge: payable by Pix, not by its line yet.
        let mut with_pix =
            BankBillet { status: BilletStatus::PendingRemittance, pix_psp: Some("s".into()), ..billet.clone() };
        billing.billet_id = Some(with_pix.id);
        let standing = Standing::of(&with_pix, &billing, today);
        assert!(matches!(standing, Standing::Payable(_)), "{standing:?}");
        let html = render(&with_pix, &standing, "/pdf", None);
        assert!(html.contains("br.gov.bcb.pix") && html.contains("pague agora pelo Pix"), "{html}");
        assert!(
            !html.contains(with_pix.registered.digitable_line.as_deref().unwrap()),
            "no line before the bank has it"
        );
        with_pix.status = BilletStatus::Opened;
        assert!(
            render(&with_pix, &standing, "/pdf", None).contains(with_pix.registered.digitable_line.as_deref().unwrap())
        );
        billing.billet_id = Some(crate::values::BilletId::new(99));
        billet.status = BilletStatus::Opened;
        billing.status = BillingStatus::Canceled;
        assert_eq!(Standing::of(&billet, &billing, today), Standing::Canceled);
        billing.status = BillingStatus::Opened;
        billing.instruction_type = Some(crate::values::InstructionType::Devolution);
        billing.instruction_days = 2;
        let late = billet.due_date + chrono::Duration::days(3);
        assert_eq!(
            Standing::of(&billet, &billing, late),
            Standing::Expired(billet.due_date + chrono::Duration::days(2))
        );
        assert!(matches!(Standing::of(&billet, &billing, billet.due_date), Standing::Payable(_)));
    }
}
