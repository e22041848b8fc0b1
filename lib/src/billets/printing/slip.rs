//! The printable billet: one A4 page in the FEBRABAN layout. On top the "Recibo do Pagador" (the
//! payer keeps it) with the Pix QR code; below the cut line the "Ficha de Compensação" the bank
//! reads: bank and digitable line in the header, the beneficiary and payer as the billet froze
//! them, our number, document number, dates, amount, instructions, and the Interleaved 2 of 5
//! barcode of the 44 digits at 0.254 mm per narrow bar, wide bars three times that, 13 mm tall,
//! with quiet zones of more than ten narrow bars on both sides (about 103 mm in all).

use pdf_writer::{Filter, Name, Pdf, Rect, Ref};

use super::barcode::{self, Bar};
use super::canvas::{Canvas, Font, MM, PAGE_HEIGHT, PAGE_WIDTH};
use super::instructions::{self, AfterDue};
use super::pix_qr::{self, Matrix, QUIET_ZONE};
use super::text::{amount, date, document};
use crate::billets::model::BankBillet;
use crate::billets::payment_codes::bank_check_digit;
use crate::values::terms::Terms;
use crate::values::BilletStatus;

/// Left edge and width of the layout (mm).
const LEFT: f32 = 10.0;
const WIDTH: f32 = 190.0;
const RIGHT: f32 = LEFT + WIDTH;
/// Line weights (mm): cell borders, and the rules under the headers.
const THIN: f32 = 0.2;
const THICK: f32 = 0.6;
/// Narrow bar (mm): 0.01 inch, three device pixels at 300 dpi.
const NARROW: f32 = 0.254;
const BARCODE_HEIGHT: f32 = 13.0;
/// The barcode's left edge (mm): half an inch, so bars fall on whole pixels at 300 dpi.
const BARCODE_LEFT: f32 = 12.7;
// The quiet zone left of the bars (the page's margin) is at least ten narrow bars.
const _: () = assert!(BARCODE_LEFT >= 10.0 * NARROW);
/// Side of the Pix QR code, quiet zone included (mm).
const QR_SIDE: f32 = 34.0;

const LABEL: Font = Font::regular(5.5);
const VALUE: Font = Font::regular(8.0);
const VALUE_BOLD: Font = Font::bold(8.5);
const RED: (f32, f32, f32) = (0.8, 0.0, 0.0);
const BLACK: (f32, f32, f32) = (0.0, 0.0, 0.0);

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

    /// The payer's receipt, from `top` (its title's baseline) to about `top + 80`.
    fn receipt(&self, canvas: &mut Canvas, top: f32) {
        canvas.text(LEFT, top, Font::bold(10.0), "Recibo do Pagador");
        if let Some(notice) = self.notice() {
            canvas.fill_rgb(RED);
            canvas.text_right(RIGHT, top, Font::bold(9.0), &notice);
            canvas.fill_rgb(BLACK);
        }
        self.header(canvas, top + 2.0);
        let amount_text = amount(self.billet.amount);
        let rows = [
            vec![
                Cell::new(95.0, "Beneficiário", self.beneficiary()),
                Cell::new(40.0, "Agência/Código do Beneficiário", self.agency_and_code()),
                Cell::new(25.0, "Vencimento", date(self.billet.due_date)).bold().right(),
                Cell::new(30.0, "Valor do documento", amount_text).bold().right(),
            ],
            vec![
                Cell::new(95.0, "Pagador", self.payer()),
                Cell::new(40.0, "Nosso número", self.our_number()),
                Cell::new(25.0, "Nº do documento", self.document_number.clone()),
                Cell::new(30.0, "(=) Valor cobrado", String::new()),
            ],
            vec![
                Cell::new(135.0, "Endereço do beneficiário", self.billet.recipient.recipient_full_address.clone()),
                Cell::new(25.0, "Data do documento", self.issued_on()),
                Cell::new(30.0, "Espécie", "R$".to_owned()),
            ],
        ];
        let mut y = top + 12.0;
        for cells in &rows {
            row(canvas, y, 9.0, cells);
            y += 9.0;
        }
        self.pix_block(canvas, y + 3.0);
        canvas.text_right(RIGHT, top + 80.0, Font::regular(6.0), "Autenticação mecânica");
    }

    /// "Pague com Pix": the QR code at the right, the copy-and-paste code at the left.
    fn pix_block(&self, canvas: &mut Canvas, top: f32) {
        let (Some(matrix), Some(payload)) = (&self.pix, self.pix_payload) else { return };
        draw_qr(canvas, matrix, RIGHT - QR_SIDE, top);
        canvas.text(LEFT, top + 5.0, Font::bold(10.0), "Pague com Pix");
        let small = Font::regular(7.5);
        canvas.text(LEFT, top + 10.0, small, "Aponte a câmera do aplicativo do seu banco para o QR Code ao lado,");
        canvas.text(LEFT, top + 13.5, small, "ou copie o código Pix Copia e Cola abaixo:");
        let code = Font::regular(6.5);
        for (n, line) in wrap_chars(payload, code, WIDTH - QR_SIDE - 8.0).iter().enumerate() {
            canvas.text(LEFT, top + 18.0 + 3.0 * n as f32, code, line);
        }
    }

    /// The compensation slip, from `top` (its header) to the barcode's bottom (about `top + 125`).
    fn compensation(&self, canvas: &mut Canvas, top: f32) {
        self.header(canvas, top);
        let mut y = top + 10.0;
        let local = "Pagável em qualquer banco até o vencimento. Após o vencimento, conforme as instruções.";
        row(
            canvas,
            y,
            8.5,
            &[
                Cell::new(140.0, "Local de pagamento", local.to_owned()),
                Cell::new(50.0, "Vencimento", date(self.billet.due_date)).bold().right(),
            ],
        );
        y += 8.5;
        self.beneficiary_row(canvas, y);
        y += 11.0;
        row(
            canvas,
            y,
            8.0,
            &[
                Cell::new(30.0, "Data do documento", self.issued_on()),
                Cell::new(35.0, "Nº do documento", self.document_number.clone()),
                Cell::new(20.0, "Espécie doc.", "DM".to_owned()),
                Cell::new(15.0, "Aceite", "N".to_owned()),
                Cell::new(40.0, "Data processamento", self.issued_on()),
                Cell::new(50.0, "Nosso número", self.our_number()).right(),
            ],
        );
        y += 8.0;
        row(
            canvas,
            y,
            8.0,
            &[
                Cell::new(30.0, "Uso do banco", String::new()),
                Cell::new(20.0, "Carteira", self.billet.bank_billet_account.clone().unwrap_or_default()),
                Cell::new(15.0, "Espécie", "R$".to_owned()),
                Cell::new(35.0, "Quantidade", String::new()),
                Cell::new(40.0, "Valor", String::new()),
                Cell::new(50.0, "(=) Valor do documento", amount(self.billet.amount)).bold().right(),
            ],
        );
        y += 8.0;
        self.instructions_block(canvas, y);
        y += 40.0;
        self.payer_block(canvas, y);
        y += 21.0;
        canvas.text_right(RIGHT, y + 3.0, Font::regular(6.5), "Autenticação mecânica - Ficha de Compensação");
        draw_barcode(canvas, &self.bars, BARCODE_LEFT, y + 4.0);
    }

    fn beneficiary_row(&self, canvas: &mut Canvas, y: f32) {
        row(
            canvas,
            y,
            11.0,
            &[
                Cell::new(140.0, "Beneficiário", String::new()),
                Cell::new(50.0, "Agência/Código do Beneficiário", self.agency_and_code()).right(),
            ],
        );
        canvas.text(LEFT + 1.0, y + 5.8, VALUE, &VALUE.fit(&self.beneficiary(), 138.0));
        let address = Font::regular(7.0);
        canvas.text(LEFT + 1.0, y + 9.3, address, &address.fit(&self.billet.recipient.recipient_full_address, 138.0));
    }

    /// The instructions at the left, the amounts the bank fills at the right: 40 mm tall.
    fn instructions_block(&self, canvas: &mut Canvas, top: f32) {
        let right = [
            "(-) Desconto/Abatimento",
            "(-) Outras deduções",
            "(+) Mora/Multa",
            "(+) Outros acréscimos",
            "(=) Valor cobrado",
        ];
        for (n, label) in right.iter().enumerate() {
            row_at(canvas, LEFT + 140.0, top + 8.0 * n as f32, 8.0, &[Cell::new(50.0, label, String::new())]);
        }
        canvas.vline(LEFT, top, 40.0, THIN);
        canvas.hline(LEFT, top + 40.0, 140.0, THIN);
        canvas.text(LEFT + 1.0, top + 2.3, LABEL, "Instruções (texto de responsabilidade do beneficiário)");
        let font = Font::regular(7.5);
        let mut lines: Vec<(String, bool)> = self.notice().into_iter().map(|n| (n, true)).collect();
        lines.extend(self.instructions.iter().map(|l| (l.clone(), false)));
        if self.pix.is_some() {
            lines.push(("Pague também com Pix pelo QR Code do Recibo do Pagador.".to_owned(), false));
        }
        for (n, (line, alert)) in lines.iter().take(8).enumerate() {
            let y = top + 6.5 + 4.2 * n as f32;
            if *alert {
                canvas.fill_rgb(RED);
                canvas.text(LEFT + 1.0, y, Font::bold(7.5), line);
                canvas.fill_rgb(BLACK);
            } else {
                canvas.text(LEFT + 1.0, y, font, &font.fit(line, 137.0));
            }
        }
    }

    /// Payer (name, document, address) and the guarantor line: 21 mm tall.
    fn payer_block(&self, canvas: &mut Canvas, top: f32) {
        canvas.vline(LEFT, top, 21.0, THIN);
        canvas.vline(RIGHT, top, 21.0, THIN);
        canvas.text(LEFT + 1.0, top + 2.3, LABEL, "Pagador");
        canvas.text(LEFT + 1.0, top + 6.0, VALUE, &VALUE.fit(&self.payer(), WIDTH - 2.0));
        let address = Font::regular(7.5);
        for (n, line) in self.payer_address().iter().enumerate() {
            canvas.text(LEFT + 1.0, top + 9.5 + 3.3 * n as f32, address, &address.fit(line, WIDTH - 2.0));
        }
        canvas.text(RIGHT - 30.0, top + 13.0, LABEL, "Código de baixa");
        canvas.hline(LEFT, top + 16.0, WIDTH, THIN);
        canvas.text(LEFT + 1.0, top + 19.0, LABEL, "Sacador/Avalista");
        canvas.hline(LEFT, top + 21.0, WIDTH, THICK);
    }
}

/// One labelled box of a row.
struct Cell<'t> {
    width: f32,
    label: &'t str,
    value: String,
    bold: bool,
    right: bool,
}

impl<'t> Cell<'t> {
    fn new(width: f32, label: &'t str, value: String) -> Cell<'t> {
        Cell { width, label, value, bold: false, right: false }
    }

    fn bold(self) -> Self {
        Cell { bold: true, ..self }
    }

    fn right(self) -> Self {
        Cell { right: true, ..self }
    }
}

/// A row of boxes across the layout, `height` tall from `top`.
fn row(canvas: &mut Canvas, top: f32, height: f32, cells: &[Cell<'_>]) {
    row_at(canvas, LEFT, top, height, cells);
}

/// A row of boxes from `left`: a border left of each, one right of the last, one below all.
fn row_at(canvas: &mut Canvas, left: f32, top: f32, height: f32, cells: &[Cell<'_>]) {
    let mut x = left;
    for cell in cells {
        canvas.vline(x, top, height, THIN);
        canvas.text(x + 1.0, top + 2.3, LABEL, cell.label);
        let font = if cell.bold { VALUE_BOLD } else { VALUE };
        let value = font.fit(&cell.value, cell.width - 2.0);
        let baseline = top + height - 1.6;
        if cell.right {
            canvas.text_right(x + cell.width - 1.0, baseline, font, &value);
        } else {
            canvas.text(x + 1.0, baseline, font, &value);
        }
        x += cell.width;
    }
    canvas.vline(x, top, height, THIN);
    canvas.hline(left, top + height, x - left, THIN);
}

/// The non-empty `parts` joined by `separator`.
fn joined(parts: &[&str], separator: &str) -> String {
    parts.iter().filter(|p| !p.trim().is_empty()).copied().collect::<Vec<_>>().join(separator)
}

/// The bars, `BARCODE_HEIGHT` tall from `top`; nothing else is drawn within 6.35 mm of either end.
fn draw_barcode(canvas: &mut Canvas, bars: &[Bar], left: f32, top: f32) {
    for bar in bars {
        canvas.fill_rect(left + bar.x as f32 * NARROW, top, bar.width as f32 * NARROW, BARCODE_HEIGHT);
    }
}

/// The QR code in a `QR_SIDE` square from (`left`, `top`), quiet zone included; each run of dark
/// modules in a row is one rectangle.
fn draw_qr(canvas: &mut Canvas, matrix: &Matrix, left: f32, top: f32) {
    let module = QR_SIDE / (matrix.width + 2 * QUIET_ZONE) as f32;
    let origin = (left + module * QUIET_ZONE as f32, top + module * QUIET_ZONE as f32);
    for y in 0..matrix.width {
        let mut x = 0;
        while x < matrix.width {
            if !matrix.is_dark(x, y) {
                x += 1;
                continue;
            }
            let start = x;
            while x < matrix.width && matrix.is_dark(x, y) {
                x += 1;
            }
            let (rx, ry) = (origin.0 + start as f32 * module, origin.1 + y as f32 * module);
            canvas.fill_rect(rx, ry, (x - start) as f32 * module, module);
        }
    }
}

/// `text` in lines of at most `room` millimetres, broken anywhere (a Pix code has no spaces).
fn wrap_chars(text: &str, font: Font, room: f32) -> Vec<String> {
    let mut lines = vec![String::new()];
    for c in text.chars() {
        let current = lines.last_mut().expect("one line at least");
        current.push(c);
        if font.width(current) > room {
            current.pop();
            lines.push(c.to_string());
        }
    }
    lines
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

/// A one-page PDF around `content`, with Helvetica and Helvetica-Bold as its fonts.
fn one_page_pdf(content: Vec<u8>, title: &str) -> Vec<u8> {
    let (catalog, pages, page, regular, bold, stream, info) =
        (Ref::new(1), Ref::new(2), Ref::new(3), Ref::new(4), Ref::new(5), Ref::new(6), Ref::new(7));
    let mut pdf = Pdf::new();
    pdf.catalog(catalog).pages(pages);
    pdf.pages(pages).kids([page]).count(1);
    let mut p = pdf.page(page);
    p.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH * MM, PAGE_HEIGHT * MM)).parent(pages).contents(stream);
    let mut resources = p.resources();
    resources.fonts().pair(super::canvas::REGULAR, regular).pair(super::canvas::BOLD, bold);
    drop(resources);
    drop(p);
    for (id, face) in [(regular, "Helvetica"), (bold, "Helvetica-Bold")] {
        pdf.type1_font(id).base_font(Name(face.as_bytes())).encoding_predefined(Name(b"WinAnsiEncoding"));
    }
    // Deflated: a page of text and bars shrinks about five times.
    let deflated = miniz_oxide::deflate::compress_to_vec_zlib(&content, 6);
    pdf.stream(stream, &deflated).filter(Filter::FlateDecode);
    pdf.document_info(info).title(pdf_writer::TextStr(title)).producer(pdf_writer::TextStr("billing-api"));
    pdf.finish()
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

    #[test]
    fn the_barcode_is_about_103_mm() {
        let bars = barcode::bars("00192376900000135000000001238798777770016818").unwrap();
        let width = barcode::units(&bars) as f32 * NARROW;
        assert!((102.5..=103.5).contains(&width), "{width}");
    }

    #[test]
    fn long_pix_codes_wrap() {
        let lines = wrap_chars(&"0".repeat(300), Font::regular(6.5), 100.0);
        assert!(lines.len() > 1 && lines.iter().all(|l| Font::regular(6.5).width(l) <= 100.0));
        assert_eq!(lines.concat(), "0".repeat(300));
    }
}
