//! The printable billet: one A4 page in the FEBRABAN layout. On top the "Recibo do Pagador" (the
//! payer keeps it) with the Pix QR code; below the cut line the "Ficha de Compensação" the bank
//! reads: bank and digitable line in the header, the beneficiary and payer as the billet froze
//! them, our number, document number, dates, amount, instructions, and the Interleaved 2 of 5
//! barcode of the 44 digits at 0.254 mm per narrow bar, wide bars three times that, 13 mm tall,
//! with quiet zones of more than ten narrow bars on both sides (about 103 mm in all).
//!
//! This file holds the slip and what it prints of the billet; each part is drawn in its own file
//! (`receipt`, `compensation`) on the grid of `layout`, and `pdf` wraps the page.

mod compensation;
mod layout;
mod pdf;
mod receipt;

use super::barcode::{self, Bar};
use super::canvas::{Canvas, Font, PAGE_WIDTH};
use super::instructions::{self, AfterDue};
use super::pix_qr::{self, Matrix};
use super::text::{date, document};
use crate::billets::model::BankBillet;
use crate::billets::payment_codes::bank_check_digit;
use crate::values::terms::Terms;
use crate::values::BilletStatus;
use layout::{LEFT, RIGHT, THICK, WIDTH};
use pdf::{one_page_pdf, pages_pdf};

/// Why a billet cannot be printed.
#[derive(Debug, PartialEq, Eq)]
pub enum NotPrintable {
    /// Not registered yet, or refused by the bank: no barcode to print.
    NoBarcode,
}

/// A billet ready to print.
pub struct Slip<'a> {
    billet: &'a BankBillet,
    barcode: &'a str,
    bars: Vec<Bar>,
    digitable_line: &'a str,
    pix: Option<Matrix>,
    pix_payload: Option<&'a str>,
    document_number: String,
    instructions: Vec<String>,
}

/// What the slip prints of the billet's billing: the document number (its code) and its terms, from
/// which the instructions are written; without them (the billing is gone) no instructions.
pub struct Document {
    pub number: String,
    pub terms: Option<(Terms, AfterDue)>,
}

impl Document {
    /// The document of a billet whose billing is gone: the number from the billing's id.
    pub fn bare(billet: &BankBillet) -> Document {
        Document { number: billet.billing_id.code(), terms: None }
    }
}

impl<'a> Slip<'a> {
    /// The slip of a registered billet; its billing's terms (when it is still there) give the
    /// instructions.
    pub fn new(billet: &'a BankBillet, document: Document) -> Result<Slip<'a>, NotPrintable> {
        let barcode = billet.registered.barcode.as_deref().ok_or(NotPrintable::NoBarcode)?;
        let digitable_line = billet.registered.digitable_line.as_deref().ok_or(NotPrintable::NoBarcode)?;
        let bars = barcode::bars(barcode).ok_or(NotPrintable::NoBarcode)?;
        let pix_payload = billet.registered.pix_qr_code.as_deref().filter(|p| !p.is_empty());
        Ok(Slip {
            billet,
            barcode,
            bars,
            digitable_line,
            pix: pix_payload.and_then(pix_qr::matrix),
            pix_payload,
            document_number: document.number,
            instructions: document.terms.map_or_else(Vec::new, |(terms, after)| instructions::lines(&terms, after)),
        })
    }

    /// The PDF document.
    pub fn pdf(&self) -> Vec<u8> {
        one_page_pdf(self.page(), &format!("Boleto {}", self.billet.id.get()))
    }

    /// A carnê's booklet: these slips, one to a page, in one PDF.
    pub fn booklet(slips: &[Slip<'_>], title: &str) -> Vec<u8> {
        pages_pdf(slips.iter().map(Slip::page).collect(), title)
    }

    /// The page's content stream: both parts and the cut line between them.
    fn page(&self) -> Vec<u8> {
        let mut canvas = Canvas::new();
        self.receipt(&mut canvas, 8.0);
        canvas.dashed_hline(5.0, 93.0, PAGE_WIDTH - 10.0, 1.0);
        canvas.text_right(RIGHT, 92.0, Font::regular(6.0), "Corte na linha pontilhada");
        self.compensation(&mut canvas, 97.0);
        canvas.finish()
    }

    fn bank_code(&self) -> String {
        let bank = &self.barcode[..3];
        format!("{bank}-{}", bank_check_digit(bank))
    }

    /// The header of both parts: bank, its code, the digitable line; `top` to `top + 10`.
    fn header(&self, canvas: &mut Canvas, top: f32) {
        let name = Font::bold(11.0).fit(&bank_name(&self.barcode[..3], &self.billet.bank_symbol), 43.0);
        canvas.text(LEFT + 0.5, top + 7.5, Font::bold(11.0), &name);
        canvas.vline(LEFT + 45.0, top + 2.0, 8.0, THICK);
        canvas.text_center(LEFT + 56.0, top + 8.0, Font::bold(14.0), &self.bank_code());
        canvas.vline(LEFT + 67.0, top + 2.0, 8.0, THICK);
        canvas.text_right(RIGHT, top + 8.0, Font::bold(10.5), self.digitable_line);
        canvas.hline(LEFT, top + 10.0, WIDTH, THICK);
    }

    fn beneficiary(&self) -> String {
        let r = &self.billet.recipient;
        format!("{} - CPF/CNPJ {}", r.recipient_full_name, document(&r.recipient_document))
    }

    fn payer(&self) -> String {
        let p = &self.billet.payer;
        format!("{} - CPF/CNPJ {}", p.payer_full_name, document(&p.payer_document))
    }

    /// Street, then district, city/state and postal code, leaving out what the snapshot lacks.
    fn payer_address(&self) -> [String; 2] {
        let p = &self.billet.payer;
        let city = joined(&[&p.payer_address_city, &p.payer_address_state], "/");
        let postal_code = if p.payer_address_postal_code.is_empty() {
            String::new()
        } else {
            format!("CEP {}", p.payer_address_postal_code)
        };
        [p.payer_address_street.clone(), joined(&[&p.payer_address_district, &city, &postal_code], " - ")]
    }

    fn agency_and_code(&self) -> String {
        let a = &self.billet.bank_account;
        let with_digit = |number: &str, digit: &str| {
            if digit.is_empty() {
                number.to_owned()
            } else {
                format!("{number}-{digit}")
            }
        };
        joined(
            &[&with_digit(&a.agency_number, &a.agency_digit), &with_digit(&a.account_number, &a.account_digit)],
            " / ",
        )
    }

    fn our_number(&self) -> String {
        self.billet.registered.our_number.clone().unwrap_or_default()
    }

    fn issued_on(&self) -> String {
        date(self.billet.created_at.date())
    }

    /// Why the payer should not pay this one, when so.
    fn notice(&self) -> Option<String> {
        match self.billet.status {
            BilletStatus::Paid => Some(match self.billet.settlement.paid_at {
                Some(on) => format!("BOLETO PAGO EM {} - NÃO PAGUE NOVAMENTE", date(on)),
                None => "BOLETO PAGO - NÃO PAGUE NOVAMENTE".to_owned(),
            }),
            BilletStatus::Canceled => Some("BOLETO CANCELADO - NÃO PAGUE".to_owned()),
            BilletStatus::Discharged => Some("BOLETO BAIXADO - NÃO PAGUE".to_owned()),
            _ => None,
        }
    }
}

/// The non-empty `parts` joined by `separator`.
fn joined(parts: &[&str], separator: &str) -> String {
    parts.iter().filter(|p| !p.trim().is_empty()).copied().collect::<Vec<_>>().join(separator)
}

/// The name in the logo area: the bank of the code, or the billet's provider.
fn bank_name(code: &str, bank_symbol: &str) -> String {
    let known = match code {
        "001" => "Banco do Brasil",
        "033" => "Santander",
        "104" => "CAIXA",
        "237" => "Bradesco",
        "341" => "Itaú",
        "422" => "Banco Safra",
        "748" => "Sicredi",
        "756" => "Sicoob",
        _ if bank_symbol == "simulated" => "Banco Simulado",
        _ => "",
    };
    if known.is_empty() {
        bank_symbol.to_uppercase()
    } else {
        known.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bank_code_check_digits() {
        let digits: Vec<u32> = ["001", "033", "104", "237", "341", "999"].iter().map(|b| bank_check_digit(b)).collect();
        assert_eq!(digits, [9, 7, 0, 2, 7, 7]);
    }

    #[test]
    fn a_registered_billet_prints_and_an_unregistered_one_does_not() {
        let mut billet = crate::billets::model::tests::sample();
        assert_eq!(Slip::new(&billet, Document::bare(&billet)).err(), Some(NotPrintable::NoBarcode));
        billet.registered.barcode = Some("00192376900000135000000001238798777770016818".into());
        billet.registered.digitable_line = Some("00190.00009 01238.798779 77700.168188 2 37690000013500".into());
        let slip = Slip::new(&billet, Document::bare(&billet)).unwrap();
        let pdf = slip.pdf();
        assert!(pdf.starts_with(b"%PDF-"), "{:?}", &pdf[..8]);
        assert!(pdf.len() < 20_000, "{} bytes", pdf.len());
        let text = String::from_utf8_lossy(&slip.page()).into_owned();
        for expected in
            ["Recibo do Pagador", "Corte na linha pontilhada", "001-9", "00190.00009 01238.798779", "135,00"]
        {
            assert!(text.contains(expected), "{expected} missing");
        }
        assert!(!text.contains("Pague com Pix"), "no Pix code, no Pix block");
    }

    #[test]
    fn a_paid_billet_says_so_and_a_pix_code_gets_its_block() {
        let mut billet = crate::billets::model::tests::sample();
        billet.registered.barcode = Some("00192376900000135000000001238798777770016818".into());
        billet.registered.digitable_line = Some("00190.00009 01238.798779 77700.168188 2 37690000013500".into());
        billet.registered.pix_qr_code = Some(
            "00020126330014br.gov.bcb.pix0111123456789015204000053039865802BR5901X6001Y62070503***6304ABCD".into(),
        );
        let page = |billet: &BankBillet| {
            String::from_utf8_lossy(&Slip::new(billet, Document::bare(billet)).unwrap().page()).into_owned()
        };
        let open = page(&billet);
        assert!(open.contains("Pague com Pix") && !open.contains("BOLETO PAGO"));
        billet.status = BilletStatus::Paid;
        billet.settlement.paid_at = Some("2026-12-09".parse().unwrap());
        // Text with accents is written as a hex string.
        let notice = hex::encode_upper(super::super::text::encode("BOLETO PAGO EM 09/12/2026 - NÃO PAGUE NOVAMENTE"));
        assert_eq!(page(&billet).to_uppercase().matches(&notice).count(), 2, "at the top and in the instructions");
    }
}
