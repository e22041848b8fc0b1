//! The "Ficha de Compensação", the part the bank reads: the header, the FEBRABAN boxes, the
//! instructions, the payer and the barcode.

use super::layout::{
    draw_barcode, row, row_at, Cell, BARCODE_LEFT, BLACK, LABEL, LEFT, RED, RIGHT, THICK, THIN, VALUE, WIDTH,
};
use super::Slip;
use crate::billets::printing::canvas::{Canvas, Font};
use crate::billets::printing::text::{amount, date};

impl Slip<'_> {
    /// The compensation slip, from `top` (its header) to the barcode's bottom (about `top + 125`).
    pub(super) fn compensation(&self, canvas: &mut Canvas, top: f32) {
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
