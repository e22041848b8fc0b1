//! The "Recibo do Pagador", the part the payer keeps: the header, the billet's boxes and, with a
//! Pix charge, the QR code and its copy-and-paste code.

use super::layout::{draw_qr, row, wrap_chars, Cell, BLACK, LEFT, QR_SIDE, RED, RIGHT, WIDTH};
use super::Slip;
use crate::billets::printing::canvas::{Canvas, Font};
use crate::billets::printing::text::{amount, date};

impl Slip<'_> {
    /// The payer's receipt, from `top` (its title's baseline) to about `top + 80`.
    pub(super) fn receipt(&self, canvas: &mut Canvas, top: f32) {
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
}
